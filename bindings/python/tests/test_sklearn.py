import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import gbt
from gbt import GBTClassifier, GBTRegressor


# No check is marked expected-to-fail.  (check_sample_weight_equivalence
# passes because fit drops rows of weight 0, which scikit-learn defines as
# absent; left in, their values would still become bin cuts.)
@parametrize_with_checks([GBTRegressor(n_estimators=10), GBTClassifier(n_estimators=10)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_classifier_is_the_train_model():
    X, y = load_breast_cancer(return_X_y=True)
    clf = GBTClassifier(n_estimators=12, max_depth=3, learning_rate=0.2).fit(X, y)
    b = gbt.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.2},
                  gbt.Dataset(X, label=y), 12)
    assert clf.get_booster().save_raw() == b.save_raw()
    np.testing.assert_array_equal(clf.predict_proba(X)[:, 1], b.predict(X))


def test_string_and_non_contiguous_labels():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = GBTClassifier(n_estimators=20).fit(X, names)
    assert list(clf.classes_) == ["setosa", "versicolor", "virginica"]
    assert clf.predict(X).dtype == names.dtype and clf.score(X, names) > 0.95
    proba = clf.predict_proba(X)
    assert proba.shape == (150, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-6)
    odd = np.array([-7, 3, 100])[y]
    clf2 = GBTClassifier(n_estimators=20).fit(X, odd)
    assert list(clf2.classes_) == [-7, 3, 100]
    np.testing.assert_array_equal(clf2.predict(X), clf2.classes_[np.argmax(clf2.predict_proba(X), axis=1)])
    # the same model as on labels 0, 1, 2
    clf3 = GBTClassifier(n_estimators=20).fit(X, y)
    assert clf3.get_booster().save_raw() == clf2.get_booster().save_raw()


def test_pipeline_grid_search_cross_val():
    X, y = load_breast_cancer(return_X_y=True)
    pipe = make_pipeline(StandardScaler(), GBTClassifier(n_estimators=10))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.9
    grid = GridSearchCV(GBTClassifier(n_estimators=10), {"max_depth": [2, 4], "learning_rate": [0.1, 0.3]},
                        cv=3).fit(X, y)
    assert set(grid.best_params_) == {"max_depth", "learning_rate"}
    c = clone(GBTRegressor(max_depth=3, eval_metric=["mae"]))
    assert c.get_params()["max_depth"] == 3 and not hasattr(c, "n_features_in_")


def test_dataframe_feature_names_and_eval_set_early_stopping():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    Xtr, Xv, ytr, yv = train_test_split(X, y, random_state=0)
    reg = GBTRegressor(n_estimators=500, learning_rate=0.3, early_stopping_rounds=5, eval_metric="rmse")
    reg.fit(Xtr, ytr, eval_set=[(Xv, yv)])
    assert list(reg.feature_names_in_) == list(X.columns) and reg.n_features_in_ == 10
    rmse = reg.evals_result_["validation_0"]["rmse"]
    assert reg.best_iteration_ == int(np.argmin(rmse)) < 499
    assert reg.get_booster().num_boosted_rounds() == reg.best_iteration_ + 1
    pred = reg.predict(Xv)
    assert np.sqrt(np.mean((pred - yv.to_numpy()) ** 2)) == pytest.approx(reg.best_score_, rel=1e-5)
    assert not hasattr(reg, "feature_importances_")
    with pytest.raises(ValueError, match="not numeric: 'sex'"):
        GBTRegressor().fit(Xtr.assign(sex=Xtr["sex"].map(lambda v: "m" if v > 0 else "f")), ytr)
