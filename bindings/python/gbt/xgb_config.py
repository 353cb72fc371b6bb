"""XGBoost 3.2's ``save_config``/``load_config`` JSON for a gbt booster.

The library's parameters (``params_info``, ``gbt_booster_get_param``) are
placed where XGBoost keeps the same names: ``learner.generic_param``
(device, nthread, seed), ``learner.gradient_booster.tree_train_param`` (the
tree parameters, under both of XGBoost's names where it lists two),
``gbtree_train_param`` (``tree_method``), ``learner.learner_train_param``
(objective, booster), ``learner.learner_model_param`` (``base_score`` as a
list, ``num_class``, ``num_feature``), ``learner.objective`` with the
objective's own section (``reg_loss_param``, ``softmax_multiclass_param``,
``aft_loss_param``, ``lambdarank_param``...) and ``learner.metrics``.  The
parameters XGBoost has no place for (another objective's parameters,
``histogram_pool_size``, ``early_stopping_rounds``...) go to
``learner.gbt_param``, so that :func:`parameters` of the text gives every
parameter back.  Reading takes XGBoost's own text too: every name the
library knows is set, the rest (XGBoost's internal facts) is skipped.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple

import numpy as np

__all__ = ["config", "parameters"]

_GENERIC = {"device": ["device"], "nthread": ["n_jobs", "nthread"], "seed": ["random_state", "seed"]}
_TREE = {"eta": ["eta", "learning_rate"], "max_depth": ["max_depth"], "max_leaves": ["max_leaves"],
         "grow_policy": ["grow_policy"], "max_bin": ["max_bin"], "lambda": ["lambda", "reg_lambda"],
         "alpha": ["alpha", "reg_alpha"], "gamma": ["gamma", "min_split_loss"],
         "min_child_weight": ["min_child_weight"], "max_delta_step": ["max_delta_step"],
         "max_cat_to_onehot": ["max_cat_to_onehot"], "max_cat_threshold": ["max_cat_threshold"],
         "subsample": ["subsample"], "colsample_bytree": ["colsample_bytree"],
         "colsample_bylevel": ["colsample_bylevel"], "colsample_bynode": ["colsample_bynode"],
         "monotone_constraints": ["monotone_constraints"],
         "interaction_constraints": ["interaction_constraints"]}
_TRAIN = ("objective", "booster", "disable_default_eval_metric")
_DART = ("normalize_type", "one_drop", "rate_drop", "sample_type", "skip_drop")  # dart_train_param
_RANK = ["lambdarank_pair_method", "lambdarank_num_pair_per_sample", "lambdarank_normalization",
         "lambdarank_score_normalization", "ndcg_exp_gain", "lambdarank_unbiased", "lambdarank_bias_norm"]
# each objective's own section in XGBoost's "objective" (and, for some, its metric's)
_OBJECTIVE_SECTIONS: Dict[str, Tuple[str, List[str]]] = {
    **{o: ("reg_loss_param", ["scale_pos_weight"]) for o in
       ("reg:squarederror", "reg:logistic", "binary:logistic", "binary:logitraw", "reg:gamma")},
    "reg:pseudohubererror": ("pseudo_huber_param", ["huber_slope"]),
    "reg:quantileerror": ("quantile_loss_param", ["quantile_alpha"]),
    "count:poisson": ("poisson_regression_param", ["max_delta_step"]),
    "reg:tweedie": ("tweedie_regression_param", ["tweedie_variance_power"]),
    "survival:aft": ("aft_loss_param", ["aft_loss_distribution", "aft_loss_distribution_scale"]),
    "multi:softmax": ("softmax_multiclass_param", ["num_class"]),
    "multi:softprob": ("softmax_multiclass_param", ["num_class"]),
    **{o: ("lambdarank_param", _RANK) for o in ("rank:ndcg", "rank:pairwise", "rank:map")},
}
_METRIC_SECTIONS = {"aft-nloglik": "survival:aft", "mphe": "reg:pseudohubererror",
                    "quantile": "reg:quantileerror"}
_LISTS = ("quantile_alpha", "base_score")  # XGBoost writes these as "[v, ...]"


def config(params: Dict[str, str], metrics: List[str], num_feature: int, num_trees: int,
           base_score: List[float], version: List[int], num_target: int = 1) -> Dict[str, Any]:
    """XGBoost's config dict of a booster: ``params`` every parameter's text
    (name -> get_param), ``base_score`` the model's intercept as a
    prediction (empty without a model: the parameter's value), one per
    target of a multi-target model (``num_target``)."""
    placed = set()

    def take(name: str) -> str:
        placed.add(name)
        return params.get(name, "")

    def listed(text: str) -> str:
        return text if text.startswith("[") else "[" + text + "]"

    generic = {x: take(n) for n, names in _GENERIC.items() for x in names}
    generic.update({"fail_on_invalid_gpu_id": "0", "seed_per_iteration": "0", "validate_parameters": "1"})
    tree = {x: take(n) for n, names in _TREE.items() for x in names}
    tree["sampling_method"] = "uniform"
    objective = params.get("objective", "")
    obj: Dict[str, Any] = {"name": objective}
    section = _OBJECTIVE_SECTIONS.get(objective)
    if section:
        obj[section[0]] = {n: listed(take(n)) if n in _LISTS else params.get(n, "") for n in section[1]}
        placed.update(section[1])
    auto = params.get("base_score", "auto") == "auto"
    # the intercept, given or estimated, as XGBoost prints it: the shortest text of its float32
    given = [float(v) for v in take("base_score").strip("[]").split(",") if v.strip()] if not auto else []
    if len(given) == 1 and len(base_score) > 1:
        given *= len(base_score)  # one value for every output, printed per output as XGBoost does
    model_param = {"base_score": "[" + ",".join(str(np.float32(v)) for v in (base_score if auto else given)) + "]"
                   if base_score or given else "[]",
                   "boost_from_average": "1" if auto else "0", "num_class": take("num_class"),
                   "num_feature": str(num_feature), "num_target": str(num_target)}
    placed.add("base_score")
    metric_list = []
    for m in metrics:
        entry: Dict[str, Any] = {"name": m}
        owner = _METRIC_SECTIONS.get(m.split("@")[0])
        if owner:
            sec, names = _OBJECTIVE_SECTIONS[owner]
            entry[sec] = {n: listed(params.get(n, "")) if n in _LISTS else params.get(n, "") for n in names}
        metric_list.append(entry)
    placed.add("eval_metric")
    gbtree = {
        "name": "gbtree",
        "gbtree_model_param": {"num_parallel_tree": take("num_parallel_tree") or "1",
                               "num_trees": str(num_trees)},
        "gbtree_train_param": {"process_type": "default", "tree_method": take("tree_method"),
                               "updater": "grow_quantile_histmaker", "updater_seq": "grow_quantile_histmaker"},
        "specified_updater": False,
        "tree_train_param": tree,
        "updater": [{"name": "grow_quantile_histmaker", "hist_train_param": {"debug_synchronize": "0"}}]}
    # dart: XGBoost's {"name": "dart", "gbtree": {...}, "dart_train_param": {...}} (bools as 0/1)
    dart = {n: {"true": "1", "false": "0"}.get(take(n), params.get(n, "")) for n in _DART}
    learner = {
        "generic_param": generic,
        "gradient_booster": ({"name": "dart", "gbtree": gbtree, "dart_train_param": dart}
                             if params.get("booster") == "dart" else gbtree),
        "learner_model_param": model_param,
        "learner_train_param": {**{n: take(n) for n in _TRAIN}, "multi_strategy": "one_output_per_tree"},
        "metrics": metric_list,
        "objective": obj,
    }
    if params.get("booster") == "gblinear":
        # XGBoost's linear booster's sections (its updater's parameters; no tree ones)
        linear = {"alpha": take("alpha"), "eta": take("eta"), "feature_selector": take("feature_selector"),
                  "lambda": take("lambda"), "learning_rate": take("eta"), "reg_alpha": take("alpha"),
                  "reg_lambda": take("lambda")}
        learner["gradient_booster"] = {
            "name": "gblinear",
            "gblinear_train_param": {"max_row_perbatch": "18446744073709551615", "tolerance": "0",
                                     "updater": take("updater")},
            "updater": {"linear_train_param": linear, "coordinate_param": {"top_k": take("top_k")}}}
    learner["gbt_param"] = {n: v for n, v in params.items() if n not in placed}
    return {"learner": learner, "version": version}


def parameters(text: str, known: Any) -> List[Tuple[str, Any]]:
    """The (name, value) pairs to set from a config text (XGBoost's or
    :func:`config`'s): every name ``known(name)`` accepts, objective first;
    ``eval_metric`` a list from ``metrics``; ``base_score`` only when
    ``boost_from_average`` is 0 (else it is the model's intercept, a fact)."""
    learner = json.loads(text).get("learner", {})
    out: Dict[str, Any] = {}

    def walk(node: Any, skip: Tuple[str, ...]) -> None:
        if not isinstance(node, dict):
            return
        for k, v in node.items():
            if isinstance(v, dict):
                walk(v, skip)
            elif isinstance(v, str) and k not in skip and known(k):
                if k in _LISTS and v.startswith("["):
                    v = v[1:-1]
                elif k.endswith("_constraints") and v in ("()", "[]"):
                    v = ""  # XGBoost's "no constraints"
                out[k] = v

    for key, node in learner.items():
        if key == "learner_model_param":
            mp = node or {}
            if "num_class" in mp:
                out["num_class"] = mp["num_class"]
            if mp.get("boost_from_average") == "0" and mp.get("base_score", "[]") != "[]":
                out["base_score"] = mp["base_score"].strip("[]")
        elif key == "objective":
            walk(node, ("name",))
            if isinstance(node, dict) and node.get("name"):
                out["objective"] = node["name"]
        elif key == "metrics":
            out["eval_metric"] = [m["name"] for m in node or [] if isinstance(m, dict) and "name" in m]
        elif key != "gradient_booster":
            walk(node, ())
        else:
            walk(node, ("name", "updater", "updater_seq", "process_type"))
            linear = node.get("gblinear_train_param") if isinstance(node, dict) else None
            if isinstance(linear, dict) and linear.get("updater") and known("updater"):
                out["updater"] = linear["updater"]  # gblinear's (the walk skips the tree updaters)
    first = [(k, out.pop(k)) for k in ("booster", "objective", "num_class") if k in out]
    return first + sorted(out.items())
