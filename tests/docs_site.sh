#!/bin/sh
# docs_site.sh SITE [SHOTS] - the built documentation site (make docs) as a
# reader meets it, in headless Chromium: the front page and the parameters
# page render (screenshots written to SHOTS, default a temporary
# directory; docs/site-screenshots/ holds the committed ones), the
# parameters page has a row for every parameter that `gbtrain --help`
# lists (when gbtrain is built), and the search page finds a parameter
# and nothing for a word no page has.  `make docs-check` runs it after
# `make docs`.  Skips when Chromium is not installed or the site is not built.
site=${1:?usage: docs_site.sh SITE [SHOTS]}
shots=${2:-}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "1..0 # SKIP no Chromium (Debian: apt-get install chromium)"
    exit 0
fi
if [ ! -f "$site/index.html" ] || [ ! -f "$site/searchindex.js" ]; then
    echo "1..0 # SKIP the site is not built in $site (make docs)"
    exit 0
fi
. "${top_srcdir:-$(dirname "$0")/..}/tests/tap.sh"
site=$(cd "$site" && pwd)
[ -n "$shots" ] || shots=$work
mkdir -p "$shots" && shots=$(cd "$shots" && pwd)
cd "$work" || exit 1
# --no-sandbox: CI runs as root; the profile directory keeps runs apart
chrome() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --hide-scrollbars --user-data-dir="$work/profile" "$@" 2>>"$work/chromium.err"
}
# a PNG's width and height, from its IHDR chunk
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d\n", $3 * 256 + $4, $7 * 256 + $8 }'; }

for page in index parameters; do
    chrome --screenshot="$shots/$page.png" --window-size=1280,900 "file://$site/$page.html" >/dev/null
    check "$page.html renders to a 1280x900 screenshot" test "$(png_size "$shots/$page.png" 2>/dev/null)" = 1280x900
    # a blank page compresses to a few kilobytes; text and tables do not
    check "... that is not blank ($(wc -c < "$shots/$page.png" 2>/dev/null) bytes)" \
        test "$(wc -c < "$shots/$page.png" 2>/dev/null || echo 0)" -gt 30000
done

if [ -x "$builddir/gbtrain" ]; then
    "$builddir/gbtrain" --help | awk '/^Training parameters/ { on = 1 } on && /^  --[a-z_]+=/ { n = $1; sub(/^--/, "", n); sub(/=.*/, "", n); print n }' > cli_params.txt
    chrome --dump-dom "file://$site/parameters.html" > params.dom
    missing=$(while read -r p; do grep -q "id=\"param-$p\"" params.dom || printf ' %s' "$p"; done < cli_params.txt)
    [ -z "$missing" ] || echo "# missing from parameters.html:$missing"
    check "parameters.html has a row for each of gbtrain's $(wc -l < cli_params.txt) parameters" \
        sh -c "test -s cli_params.txt && test -z '$missing'"
fi

# The results list of search.html, which Sphinx's script fills from
# searchindex.js: the <ul class="search"> inside <div id="search-results">
search() {
    chrome --dump-dom --virtual-time-budget=10000 "file://$site/search.html?q=$1" | tr '\n' ' ' |
        sed -n 's|.*<div id="search-results">\(.*\)|\1|p' | sed 's|</div>.*||' > "search_$1.html"
}
search max_depth
check "search.html?q=max_depth finds the parameter on the parameters page" \
    grep -q 'class="search".*<li[^>]*><a href="parameters.html#param-max_depth"' search_max_depth.html
search zqxjkvbw
check "... and a word no page has finds nothing" sh -c 'grep -q "Search Results" search_zqxjkvbw.html && ! grep -q "<li" search_zqxjkvbw.html'
[ "$tap_failed" -eq 0 ] || { echo "# Chromium's messages:"; tail -n 5 "$work/chromium.err" | sed 's/^/# /'; }
done_testing
