/*
 * prune.h - XGBoost's prune updater (process_type=update, updater=prune)
 * on one tree (prune.c).
 */
#ifndef GBT_PRUNE_H
#define GBT_PRUNE_H

#include "model/tree.h"

/*
 * Bottom-up, an inner node both of whose children are leaves becomes a
 * leaf of value lr * its value (its weight) when its gain is below gamma
 * (compared in float, as XGBoost's) or, with max_depth > 0, its children
 * are deeper than max_depth; its parent is then looked at again.  A tree
 * that lost nodes is renumbered breadth-first, left before right (the
 * numbering gbt gives an XGBoost tree with deleted nodes when it reads
 * one); *pruned counts the nodes removed.
 */
gbt_status gbt__prune_tree(struct gbt_tree *t, double gamma, int max_depth, float lr, int32_t *pruned);

#endif
