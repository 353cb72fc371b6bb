#!/bin/sh
# readme.sh - README.md stays true: its C example compiles as shown and
# runs, and its commands run as written.  (The parameter table moved to the
# documentation site, which generates it from the library's table:
# docs/site/_ext/gbt_params.py.)
. "${top_srcdir:-.}/tests/tap.sh"
readme=$srcdir/README.md
cd "$work" || exit 1

awk '/^```c$/ { on = 1; next } /^```$/ { on = 0 } on' "$readme" > example.c
check "README has a C example" test -s example.c
# Built as a user of this build would: its compiler and flags (a sanitizer
# build needs its runtime linked into the program too).
${CC:-cc} -std=c11 ${GBT_BUILD_CFLAGS:-} -I"$srcdir/include" -c example.c -o example.o 2> cc.err
check "the example compiles without warnings" sh -c "test ! -s cc.err"
"$builddir/libtool" --mode=link ${CC:-cc} ${GBT_BUILD_LDFLAGS:-} -o example example.o "$builddir/libgbt.la" >/dev/null 2>&1
check "the example links against libgbt" test -x example
gbt_run ./example > example.out 2>&1
sed 's/^/# /' example.out
check "the example runs and reports a training AUC" grep -Eq "^training AUC (0\.9[0-9]+|1\.0+), first prediction" example.out
check "the example saved its model" test -s example.model

# issue 27, defect 8: the Installing section says what ./configure builds and how to choose
awk '/^### Installing/ { on = 1; next } /^##/ { on = 0 } on' "$readme" > installing.txt
check "README's Installing section names the CPU-only and the one-architecture builds" \
    sh -c 'grep -q -- "--without-cuda" installing.txt && grep -q -- "--with-cuda-arch=90" installing.txt && grep -q "five GPU" installing.txt'
check "README's pip command shows the build's progress (pip install -v)" grep -q '^pip install -v ./bindings/python' "$readme"
# issue 38, finding 10: the Command line section's commands run as written
# in a clone after quickstart.sh (tools in the top directory, datasets/ beside them)
awk '/^## Command line/ { on = 1; next } /^## / { on = 0 } on' "$readme" |
    awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' > cli_section.sh
check "README's Command line section has commands" grep -q '^\./gbtrain ' cli_section.sh
mkdir clone && ln -s "$data" clone/datasets
for t in gbtrain gbpredict gbmodel; do
    printf '#!/bin/sh\nexec %s %s "$@"\n' "${GBT_TEST_WRAPPER:+$builddir/libtool --mode=execute $GBT_TEST_WRAPPER}" \
        "$builddir/$t" > clone/$t
    chmod +x clone/$t
done
(cd clone && sh -e ../cli_section.sh) > cli_section.out 2>&1
status=$?
sed 's/^/# /' cli_section.out | tail -4
check "README's Command line commands run as written (exit 0)" test "$status" -eq 0
check "... and predict every test row" test "$(wc -l < clone/predictions.txt)" -eq "$(wc -l < "$data/breast_cancer.test.csv")"
done_testing
