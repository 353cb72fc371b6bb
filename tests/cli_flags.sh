#!/bin/sh
# cli_flags.sh - every boolean option of every tool means its value: a bare
# --flag and 1, true, yes, on (any case) switch it on; 0, false, no, off
# switch it off; anything else is refused naming the option and the value
# (issue 38, finding 1: --force=0 replaced files, --margin=0 printed raw
# scores).  Each probe below tells "on" from "off" by what the tool did.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1

# tiny data: 60 rows, 30 features, 2 rounds
head -60 "$data/breast_cancer.train.csv" > r.csv
awk -F, 'NR == 1 { h = "label"; for (i = 2; i <= NF; i++) h = h ",f" i - 1; print h } { print }' r.csv > hdr.csv
sed '1s/f/g/g' hdr.csv > other.csv
cp r.csv side.csv
awk '{ print 1 }' r.csv > side.csv.weight
train() { gbtrain -q --nthread=1 --num_round=2 --objective=binary:logistic "$@"; }
train r.csv m.json || exit 1
train --header hdr.csv hm.json || exit 1
gbpredict r.csv m.json > plain.txt || exit 1
echo notes > keep.txt

on_spellings="1 true yes on TRUE Yes ON"
off_spellings="0 false no off FALSE No Off"
# nth N LIST: the Nth word (from 0, cyclically) of LIST
nth() { set -- $(($1 % 7)) $2; shift $(($1 + 1)); echo "$1"; }

# arg FLAG SPELLING: the option as typed
arg() {
    if [ "$2" = BARE ]; then printf -- '--%s' "$1"; else printf -- '--%s=%s' "$1" "$2"; fi
}

# fresh_notes: notes.txt, a file the tools did not write
fresh_notes() { echo notes > notes.txt; }
same_notes() { cmp -s notes.txt keep.txt && echo off || echo on; }

# probe TOOL FLAG ARG: prints on or off, from what the tool did with ARG
probe() {
    case $1:$2 in
    gbtrain:force) fresh_notes; train "$3" r.csv notes.txt 2>/dev/null; same_notes ;;
    gbpredict:force) fresh_notes; gbpredict "$3" r.csv m.json notes.txt 2>/dev/null; same_notes ;;
    gbmodel:force) fresh_notes; gbmodel "$3" info m.json notes.txt 2>/dev/null; same_notes ;;
    gbtrain:header) train "$3" hdr.csv h.json 2>/dev/null && echo on || echo off ;;
    gbpredict:header) gbpredict "$3" hdr.csv m.json >/dev/null 2>&1 && echo on || echo off ;;
    gbtrain:q | gbtrain:quiet)
        gbtrain --nthread=1 --num_round=1 "$3" r.csv q.json 2>err.txt
        [ -s err.txt ] && echo off || echo on ;;
    gbpredict:q | gbpredict:quiet)
        gbpredict "$3" side.csv m.json >/dev/null 2>err.txt # says it read side.csv.weight unless quiet
        [ -s err.txt ] && echo off || echo on ;;
    gbmodel:q | gbmodel:quiet)
        gbmodel "$3" slice --rounds=0:1 m.json s.json 2>err.txt
        [ -s err.txt ] && echo off || echo on ;;
    *:help | *:h)
        $1 "$3" > out.txt 2>/dev/null
        grep -q '^Usage: ' out.txt && echo on || echo off ;;
    *:version)
        $1 "$3" > out.txt 2>/dev/null
        grep -q "^$1 [0-9]" out.txt && echo on || echo off ;;
    gbtrain:eval_train)
        gbtrain --nthread=1 --num_round=1 --valid=r.csv "$3" r.csv e.json 2>err.txt
        grep -q 'train-' err.txt && echo on || echo off ;;
    gbtrain:pred_margin)
        printf 'task = pred\nmodel_in = m.json\ntest:data = r.csv\npred_margin = %s\n' "${3#--pred_margin=}" > pred.conf
        gbtrain --config=pred.conf 2>err.txt
        grep -q 'gbpredict --margin' err.txt && echo on || echo off ;;
    gbpredict:margin)
        # off: probabilities, the logistic of the raw scores printed with --margin
        gbpredict "$3" r.csv m.json > out.txt
        gbpredict r.csv m.json --margin > margin.txt
        paste out.txt margin.txt | awk '{ d = $1 - 1 / (1 + exp(-$2)); if (d < -1e-6 || d > 1e-6) bad = 1 }
                                        END { print bad ? "on" : "off" }' ;;
    gbpredict:pred_leaf | gbpredict:pred_contribs | gbpredict:pred_interactions)
        # on: 2 leaf ids, 30 + 1 contributions or 31 * 31 interactions a row; off: the predictions
        gbpredict "$3" r.csv m.json > out.txt
        if cmp -s out.txt plain.txt; then echo off; else
            awk -F'\t' -v f="$2" 'NR == 1 { w = f == "pred_leaf" ? 2 : f == "pred_contribs" ? 31 : 961
                                             print NF == w ? "on" : "wrong width " NF }' out.txt
        fi ;;
    gbpredict:approx_contribs)
        # on: Saabas' approximation, which differs from the exact SHAP values
        gbpredict --pred_contribs r.csv m.json > exact.txt
        gbpredict --pred_contribs "$3" r.csv m.json > out.txt
        cmp -s out.txt exact.txt && echo off || echo on ;;
    gbpredict:validate_features)
        # other.csv names its features g1..g30, the model f1..f30
        gbpredict --header "$3" other.csv hm.json >/dev/null 2>&1 && echo off || echo on ;;
    gbmodel:with_stats)
        gbmodel dump "$3" m.json > out.txt
        grep -q 'gain=' out.txt && echo on || echo off ;;
    *) echo "no probe for $1 --$2" ;;
    esac
}

# every flag: bare, one on and one off spelling, in turn so that the flags
# together use every spelling; the reported flags every spelling (cheap: a
# few seconds)
i=0
for tf in gbtrain:force gbtrain:header gbtrain:q gbtrain:quiet gbtrain:help gbtrain:h gbtrain:version \
    gbtrain:eval_train gbtrain:pred_margin \
    gbpredict:force gbpredict:header gbpredict:q gbpredict:quiet gbpredict:help gbpredict:h \
    gbpredict:version gbpredict:margin gbpredict:pred_leaf gbpredict:pred_contribs \
    gbpredict:approx_contribs gbpredict:pred_interactions gbpredict:validate_features \
    gbmodel:force gbmodel:q gbmodel:quiet gbmodel:help gbmodel:h gbmodel:version gbmodel:with_stats; do
    tool=${tf%%:*}
    flag=${tf#*:}
    wrong=""
    case $tf in
    gbtrain:force | gbpredict:margin) on=$on_spellings off=$off_spellings ;;
    *) on="$(nth $i "$on_spellings") BARE" off=$(nth $i "$off_spellings") ;;
    esac
    i=$((i + 1))
    for sp in $on; do
        # options that take their value (--eval_train 0): no bare form
        case $flag:$sp in pred_margin:BARE | eval_train:BARE | validate_features:BARE) continue ;; esac
        got=$(probe "$tool" "$flag" "$(arg "$flag" "$sp")")
        [ "$got" = on ] || wrong="$wrong $sp:$got"
    done
    for sp in $off; do
        got=$(probe "$tool" "$flag" "$(arg "$flag" "$sp")")
        [ "$got" = off ] || wrong="$wrong $sp:$got"
    done
    [ -z "$wrong" ] || echo "# $tool --$flag: wrong for$wrong"
    check "$tool --$flag: bare and 1/true/yes/on mean on, 0/false/no/off off" test -z "$wrong"
    # a value that is not a boolean: refused, naming the option and the value
    if [ "$flag" != pred_margin ]; then
        case $tool in gbtrain) files="r.csv x.json" ;; gbpredict) files="r.csv m.json" ;; *) files="info m.json" ;; esac
        fails "$tool --$flag=maybe is refused" "command line: --$flag='maybe': expected a boolean" \
            $tool "--$flag=maybe" $files
    fi
done

# The finding's cases as reported
fresh_notes
fails "gbtrain --force=0 refuses to replace a file it did not write" "refusing to replace it" \
    train --force=0 r.csv notes.txt
check "... and leaves it byte for byte" cmp notes.txt keep.txt
fails "an empty value is not a boolean" "--force='': expected a boolean" train --force= r.csv notes.txt
# config files read the same spellings and name their line
printf 'num_round = 1\nforce = no\n' > no.conf
fails "config force = no refuses to replace" "refusing to replace it" gbtrain -q --config=no.conf r.csv notes.txt
check "... and leaves the file byte for byte" cmp notes.txt keep.txt
printf 'num_round = 1\nheader = Yes\n' > hdr.conf
check "config header = Yes reads the header" gbtrain -q --config=hdr.conf hdr.csv hc.json
printf 'num_round = 1\n\nforce = sometimes\n' > bad.conf
fails "config force = sometimes names the file, line and value" \
    "bad.conf:3: force = 'sometimes': expected a boolean: 1/0, true/false, yes/no or on/off" \
    gbtrain -q --config=bad.conf r.csv notes.txt
# the library's yes/no training parameters take the same spellings in gbtrain:
# with the default metric off, the round's line names none
gbtrain --num_round=1 --disable_default_eval_metric=on r.csv ddm.json 2> ddm.err
check "gbtrain --disable_default_eval_metric=on: no default metric logged" \
    sh -c "grep -q '^\[0\]' ddm.err && ! grep -q 'train-' ddm.err"
check "gbtrain --validate_features=yes is taken" gbtrain -q --force --num_round=1 --validate_features=yes r.csv vf.json
fails "gbtrain --validate_features=maybe is refused" "validate_features" \
    gbtrain -q --force --num_round=1 --validate_features=maybe r.csv vf.json
done_testing
