"""Each tree's prediction, summed, against the model's: iterate the Booster and slice it."""
import json

import numpy as np
from sklearn.datasets import load_svmlight_file

import xgboost as xgb

num_parallel_tree = 1
num_boost_round = 16

X_train, y_train = load_svmlight_file("demo.train.libsvm", zero_based=True)
X_test, y_test = load_svmlight_file("demo.test.libsvm", zero_based=True, n_features=X_train.shape[1])


def individual_tree() -> None:
    Xy = xgb.DMatrix(X_train, y_train)
    booster = xgb.train({"num_parallel_tree": num_parallel_tree, "subsample": 0.5, "colsample_bynode": 0.5},
                        Xy, num_boost_round=num_boost_round)
    trees = [booster[t] for t in range(num_boost_round)]
    assert len(trees) == num_boost_round
    Xy = xgb.DMatrix(X_test, y_test)
    # the starting score, once; each slice adds it to its own tree's leaves
    config = json.loads(booster.save_config())
    base_score = float(str(config["learner"]["learner_model_param"]["base_score"]).strip("[]"))
    scores = np.array([t.predict(Xy, output_margin=True) for t in trees])
    y_predt = np.sum(scores, axis=0) - (len(trees) - 1) * base_score
    y_score = booster.predict(Xy, output_margin=True)
    # each tree's prediction is rounded to float32 once (near base_score's size): 16 roundings
    np.testing.assert_allclose(y_score, y_predt, rtol=1e-3, atol=1e-5)
    return y_score


def model_slices() -> None:
    Xy = xgb.DMatrix(X_train, y_train)
    booster = xgb.train({"num_parallel_tree": num_parallel_tree, "subsample": 0.5, "colsample_bynode": 0.5,
                         "objective": "binary:logistic"}, Xy, num_boost_round=num_boost_round)
    trees = [booster[t] for t in range(num_boost_round)]
    in_loop = [t for t in booster]
    assert len(in_loop) == len(trees) == booster.num_boosted_rounds()
    Xy = xgb.DMatrix(X_test, y_test)
    first_half = booster[: num_boost_round // 2]
    np.testing.assert_allclose(first_half.predict(Xy), booster.predict(Xy, iteration_range=(0, num_boost_round // 2)),
                               rtol=1e-6)
    return first_half.predict(Xy)


RESULT = {"score": individual_tree(), "half": model_slices()}
