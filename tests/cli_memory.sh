#!/bin/sh
# cli_memory.sh - bounded training memory: histogram_pool_size bounds the
# histograms kept, and a training whose estimate exceeds the memory it may
# use is refused before it starts, with the numbers and no model file.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1
tr=$data/breast_cancer.train.csv
deep="--grow_policy=lossguide --max_depth=63 --max_leaves=0 --min_child_weight=0 --num_round=2"

# 427 rows, 30 features: an unbounded pool holds up to 427 histograms of
# about 30 * 256 bins (16 bytes each), some 50 MB; 30 MB cannot hold them.
# Per-row state: 427 x (three doubles and a gradient pair of 8 bytes, 32)
# + 427 x 8 (the row partition) = 17080 bytes.
GBT_CPU_FAKE_MEMORY_BYTES=30000000 fails "a training that cannot fit is refused with the numbers" \
    "training needs about [0-9]+ bytes on the CPU but the memory \(GBT_CPU_FAKE_MEMORY_BYTES\) is 30000000 bytes \(427 rows, 30 features, per-row state: 17080 bytes, a histogram pool of 427 slots of [0-9]+ bins: [0-9]+ bytes\); lower histogram_pool_size" \
    "$gbtrain" -q $deep --histogram_pool_size=0 "$tr" refused.model
check "(no model file)" test ! -e refused.model
# 1 MB: a pool of some 8 histograms fits, and gives the unbounded pool's model
GBT_CPU_FAKE_MEMORY_BYTES=30000000 gbtrain -q $deep --histogram_pool_size=1 "$tr" small.model
check "with histogram_pool_size=1 it trains" test -s small.model
gbtrain -q $deep --histogram_pool_size=0 "$tr" unbounded.model
check "the model of the unbounded pool" cmp small.model unbounded.model
gbtrain -q $deep "$tr" default.model
check "and of the default pool" cmp default.model unbounded.model
fails "histogram_pool_size below -1 is refused with its range" \
    "parameter 'histogram_pool_size' expects a number in \[-1, inf\), got '-2'" \
    "$gbtrain" -q --histogram_pool_size=-2 "$tr" bad.model
check "(no model file)" test ! -e bad.model
done_testing
