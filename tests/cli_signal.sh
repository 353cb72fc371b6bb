#!/bin/sh
# cli_signal.sh - issue 27: SIGINT or SIGTERM during gbtrain finishes the
# round in progress, saves the model of the finished rounds atomically with a
# message saying how many, and exits 130; a second signal stops at once.
# Issue 38: nothing is written unless a new round finished, and a signal at
# any point (set-up, training, a checkpoint, the final save) leaves either
# the old model or the new one, never a temporary file.
# Real signals to a child process.  And --save_period: one training, its
# progress over all the rounds, the checkpoints saved from it.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1

tr=$data/breast_cancer.train.csv
# far more rounds than the test waits for: only a signal ends these trainings
long="--num_round=1000000 --max_depth=6 --nthread=1"

# Waits until file $1 has a line matching $2 (at most 60 s).
await() {
    i=0
    while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
}
# Starts gbtrain in the background (its pid in $pid, standard error in $1.err)
# and waits until it has logged round ${upto:-2}.
start() {
    name=$1
    shift
    "$builddir/gbtrain" $long "$@" >"$name.out" 2>"$name.err" &
    pid=$!
    await "$name.err" "^\[${upto:-2}\]"
}
# Starts gbtrain with the test pause $2 (GBTRAIN_TEST_PAUSE=WHERE:N, in
# src/cli/interrupt.h): at that point it prints "gbtrain: test pause:
# WHERE" and waits until N signals have arrived.  So the signals sent
# after that line are received exactly there: the cases below are
# deterministic, not a matter of timing.
paused() {
    name=$1
    pause=$2
    shift 2
    GBTRAIN_TEST_PAUSE=$pause "$builddir/gbtrain" --nthread=1 "$@" >"$name.out" 2>"$name.err" &
    pid=$!
    await "$name.err" "^gbtrain: test pause: "
}
# The rounds in a model file, as gbmodel info counts them.
rounds() { "$builddir/gbmodel" info "$1" | sed -n 's/^rounds: //p'; }

echo '{"format": "gbt-model", "an old model": 1}' >int.model
start int "$tr" int.model
kill -INT "$pid"
wait "$pid"
status=$?
check "SIGINT: exit status 130 (got $status)" test "$status" -eq 130
said=$(sed -n 's/^gbtrain: interrupted: saved the model of the \([0-9]*\) finished rounds (of 1000000 asked for) to int.model$/\1/p' int.err)
check "a message says how many rounds were saved ($said)" test -n "$said"
check "the model file holds those rounds, at least the 3 logged before the signal ($(rounds int.model))" \
    sh -c "test '$(rounds int.model)' = '$said' && test '$said' -ge 3"
check "the round in progress was finished: its line is the last logged" \
    sh -c "grep '^\[' int.err | tail -n 1 | grep -q '^\[$((said - 1))\]'"
"$builddir/gbpredict" -q "$data/breast_cancer.test.csv" int.model pred.txt
check "the saved model predicts" test "$(wc -l <pred.txt)" -eq 142

start term "$tr" term.model
kill -TERM "$pid"
wait "$pid"
status=$?
check "SIGTERM: exit status 130 too (got $status)" test "$status" -eq 130
check "and the model of the finished rounds is saved" \
    grep -q "^gbtrain: terminated: saved the model of the $(rounds term.model) finished rounds" term.err

# with --save_period, the checkpoint file is the model file: replaced by the finished rounds
start period "$tr" period.model --save_period=2
kill -INT "$pid"
wait "$pid"
status=$?
said=$(sed -n 's/^gbtrain: interrupted: saved the model of the \([0-9]*\) finished rounds.*/\1/p' period.err)
check "--save_period: interrupted, the model holds every finished round, not the last checkpoint's" \
    sh -c "test $status -eq 130 && test -n '$said' && test '$(rounds period.model)' = '$said'"

# a second signal: at once, without saving.  Two SIGINTs sent together may
# merge into one (signals of a kind do not queue), so the process is stopped,
# gets SIGINT and then SIGTERM, both pending, and is continued: the handler
# of the one delivered second finds the first's request.
echo '{"format": "gbt-model", "kept": 1}' >twice.model
cp twice.model twice.before
start twice "$tr" twice.model
kill -STOP "$pid"
kill -INT "$pid"
kill -TERM "$pid"
kill -CONT "$pid"
wait "$pid"
status=$?
check "a second signal stops at once: exit status 130 (got $status)" test "$status" -eq 130
check "saying so" grep -q "interrupted again: stopping at once" twice.err
check "and the model file is left as it was" cmp -s twice.model twice.before
check "(it says what the file holds: $(grep "interrupted again" twice.err))" \
    grep -q "^gbtrain: interrupted again: stopping at once; the rounds since the last save are not saved (twice.model left as it was)\$" twice.err

# issue 38, findings 3 and 7: an interrupted training writes nothing unless a
# new round finished, says what it wrote, exits 130, and never leaves a
# temporary file.  An old model of 3 rounds, and a copy to compare with:
"$builddir/gbtrain" -q --num_round=3 --nthread=1 "$tr" old.model
cp old.model old.before

# Ctrl-C before the first round (the signal arrives as training starts: the
# library takes the stop before round 1)
cp old.before first.model
paused first train:1 "$tr" first.model --num_round=1000
kill -INT "$pid"
wait "$pid"
status=$?
check "Ctrl-C before the first round: exit 130 (got $status)" test "$status" -eq 130
check "the old model is left byte for byte" cmp -s first.model old.before
check "saying so: $(tail -n 1 first.err)" \
    grep -q "^gbtrain: interrupted before the first round finished: nothing written (first.model left as it was)\$" first.err
# the same where there was no model: none is created
paused none train:1 "$tr" none.model --num_round=1000
kill -TERM "$pid"
wait "$pid"
status=$?
check "SIGTERM before the first round, no model file before: exit 130 (got $status), none created" \
    sh -c "test $status -eq 130 && test ! -e none.model && grep -q 'nothing written (none.model not created)\$' none.err"

# during set-up (before the data is read): at once
cp old.before setup.model
paused setup load:1 "$tr" setup.model --num_round=1000
kill -INT "$pid"
wait "$pid"
status=$?
check "Ctrl-C during set-up: exit 130 (got $status), the old model byte for byte" \
    sh -c "test $status -eq 130 && cmp -s setup.model old.before"
check "saying so: $(tail -n 1 setup.err)" \
    grep -q "^gbtrain: interrupted before training: nothing written (setup.model left as it was)\$" setup.err

# continued training (--model_in, into the same file): before a new round, the file is kept
cp old.before cont0.model
paused cont0 train:1 --model_in=cont0.model "$tr" cont0.model --num_round=1000
kill -INT "$pid"
wait "$pid"
status=$?
check "continued training, Ctrl-C before a new round: exit 130 (got $status), the input model byte for byte" \
    sh -c "test $status -eq 130 && cmp -s cont0.model old.before"
check "saying so: $(tail -n 1 cont0.err)" \
    grep -q "^gbtrain: interrupted before the first new round finished: nothing written (cont0.model left as it was)\$" cont0.err
# after new rounds: the message counts the file's rounds, and the new ones
cp old.before cont.model
upto=5 start cont --model_in=cont.model "$tr" cont.model
kill -INT "$pid"
wait "$pid"
status=$?
said=$(sed -n 's/^gbtrain: interrupted: saved the model of \([0-9]*\) rounds (3 from --model_in, \([0-9]*\) finished now, of 1000000 asked for) to cont.model$/\1 \2/p' cont.err)
check "continued training, interrupted: exit 130 (got $status); the message counts the file's rounds and the new ones ($said)" \
    sh -c "test $status -eq 130 && test -n '$said'"
check "the file holds that many rounds ($(rounds cont.model)), 3 more than the new ones" \
    sh -c "set -- $said; test \"\$1\" = '$(rounds cont.model)' && test \$((\$1 - \$2)) -eq 3 && test \$2 -ge 3"

# one signal during the final save: the save finishes, the exit status is 130
cp old.before save1.model
paused save1 save:1 --num_round=5 "$tr" save1.model
kill -INT "$pid"
wait "$pid"
status=$?
check "a signal during the final save: exit 130, not 0 (got $status)" test "$status" -eq 130
check "the model of the 5 rounds is saved, as the message says: $(tail -n 1 save1.err)" \
    sh -c "test '$(rounds save1.model)' = 5 && grep -q '^gbtrain: interrupted: saved the model of the 5 finished rounds (of 5 asked for) to save1.model\$' save1.err"

# a second signal during the final save: the save is abandoned, the temporary file removed
cp old.before save2.model
paused save2 save:2 --num_round=5 "$tr" save2.model
check "(paused in the save, its temporary file is there)" sh -c "ls -A | grep -q '^save2\.model\.tmp\.'"
kill -INT "$pid"
await save2.err "finishing the save in progress"
kill -TERM "$pid"
wait "$pid"
status=$?
check "a second signal during the final save: exit 130 (got $status)" test "$status" -eq 130
check "the old model byte for byte, and a true message: $(tail -n 1 save2.err)" \
    sh -c "cmp -s save2.model old.before && grep -q '^gbtrain: interrupted again while saving: stopped; the model of 5 rounds was not saved (save2.model left as it was)\$' save2.err"
check "no temporary file is left" sh -c "! ls -A | grep -q '^save2\.model\.tmp\.'"

# a second signal during a checkpoint (--save_period=2: the first is after round 2)
cp old.before ckpt.model
paused ckpt save:2 --num_round=6 --save_period=2 "$tr" ckpt.model
kill -INT "$pid"
await ckpt.err "finishing the save in progress"
kill -TERM "$pid"
wait "$pid"
status=$?
check "a second signal during a checkpoint: exit 130 (got $status), the old model byte for byte" \
    sh -c "test $status -eq 130 && cmp -s ckpt.model old.before"
check "saying so: $(tail -n 1 ckpt.err)" \
    grep -q "^gbtrain: interrupted again while saving: stopped; the model of 2 rounds was not saved (ckpt.model left as it was)\$" ckpt.err

check "no temporary file is left: $(ls -A | tr '\n' ' ')" \
    sh -c "! ls -A | grep -Ev '^[a-z0-9]+\.(model|err|out|before)\$|^pred\.txt\$'"

"$builddir/gbtrain" --num_round=6 --save_period=2 --nthread=1 "$tr" sp.model 2>sp.err
check "--save_period=2 of 6 rounds: one training (one summary line, of 6 rounds): $(grep trained sp.err | tr '\n' ' ')" \
    sh -c "test \$(grep -c '^trained' sp.err) -eq 1 && grep -q '^trained 6 rounds' sp.err"
check "its elapsed time never goes back from round to round" \
    sh -c "sed -n 's/.*(\([0-9.]*\)s elapsed.*/\1/p' sp.err | awk 'NR > 1 && \$1 < prev { exit 1 } { prev = \$1 } END { if (NR != 6) exit 1 }'"
check "checkpoints after rounds 2 and 4, and the model after 6" \
    sh -c "grep '^saved' sp.err | tr '\n' ' ' | grep -q '^saved 2 rounds to sp.model saved 4 rounds to sp.model saved 6 rounds to sp.model \$'"
check "(rounds: $(rounds sp.model))" test "$(rounds sp.model)" = 6

done_testing
