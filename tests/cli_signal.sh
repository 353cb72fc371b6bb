#!/bin/sh
# cli_signal.sh - issue 27: SIGINT or SIGTERM during gbtrain finishes the
# round in progress, saves the model of the finished rounds atomically with a
# message saying how many, and exits 130; a second signal stops at once.
# Real signals to a child process.  And --save_period: one training, its
# progress over all the rounds, the checkpoints saved from it.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1

tr=$data/breast_cancer.train.csv
# far more rounds than the test waits for: only a signal ends these trainings
long="--num_round=1000000 --max_depth=6 --nthread=1"

# Starts gbtrain in the background (its pid in $pid, standard error in $1.err)
# and waits until it has logged round 2 (at most 60 s).
start() {
    name=$1
    shift
    "$builddir/gbtrain" $long "$@" >"$name.out" 2>"$name.err" &
    pid=$!
    i=0
    while ! grep -q '^\[2\]' "$name.err" 2>/dev/null && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
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
check "no temporary file is left: $(ls -A | tr '\n' ' ')" \
    sh -c "! ls -A | grep -Ev '^(int|term|period|twice)\.(model|err|out|before)\$|^pred\.txt\$'"

"$builddir/gbtrain" --num_round=6 --save_period=2 --nthread=1 "$tr" sp.model 2>sp.err
check "--save_period=2 of 6 rounds: one training (one summary line, of 6 rounds): $(grep trained sp.err | tr '\n' ' ')" \
    sh -c "test \$(grep -c '^trained' sp.err) -eq 1 && grep -q '^trained 6 rounds' sp.err"
check "its elapsed time never goes back from round to round" \
    sh -c "sed -n 's/.*(\([0-9.]*\)s elapsed.*/\1/p' sp.err | awk 'NR > 1 && \$1 < prev { exit 1 } { prev = \$1 } END { if (NR != 6) exit 1 }'"
check "checkpoints after rounds 2 and 4, and the model after 6" \
    sh -c "grep '^saved' sp.err | tr '\n' ' ' | grep -q '^saved 2 rounds to sp.model saved 4 rounds to sp.model saved 6 rounds to sp.model \$'"
check "(rounds: $(rounds sp.model))" test "$(rounds sp.model)" = 6

done_testing
