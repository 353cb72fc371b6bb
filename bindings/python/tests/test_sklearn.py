import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import gbt
from gbt import GBTClassifier, GBTRanker, GBTRegressor
from conftest import read_model, run_gbtrain


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
    assert clf.get_booster().save_raw("gbt") == b.save_raw("gbt")
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
    assert clf3.get_booster().save_raw("gbt") == clf2.get_booster().save_raw("gbt")


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
    # every round stays (XGBoost 3.2); predict uses rounds 0..best_iteration_
    assert reg.get_booster().num_boosted_rounds() == reg.best_iteration_ + 5 + 1 == len(rmse)
    pred = reg.predict(Xv)
    assert np.sqrt(np.mean((pred - yv.to_numpy()) ** 2)) == pytest.approx(reg.best_score_, rel=1e-5)
    fi = reg.feature_importances_
    assert fi.dtype == np.float32 and fi.shape == (10,) and fi.sum() == pytest.approx(1, rel=1e-6)
    assert reg.get_booster().feature_names == list(X.columns)  # stored in the model
    # predict's default range is up to best_iteration_, not the whole model
    np.testing.assert_array_equal(pred, reg.predict(Xv, iteration_range=(0, reg.best_iteration_ + 1)))
    assert not np.array_equal(pred, reg.predict(Xv, iteration_range=(0, len(rmse))))
    with pytest.raises(ValueError, match="not numeric: 'sex'"):
        GBTRegressor().fit(Xtr.assign(sex=Xtr["sex"].map(lambda v: "m" if v > 0 else "f")), ytr)


def test_feature_importances_are_gbmodels_gain_normalised(gbmodel, tmp_path):
    import subprocess
    X, y = load_breast_cancer(return_X_y=True)
    clf = GBTClassifier(n_estimators=8, max_depth=3).fit(X, y)
    clf.get_booster().save_model(tmp_path / "m.json")
    # XGBoost's estimators record their kind in the file and refuse another kind's
    clf.save_model(tmp_path / "clf.json")
    assert clf.get_booster().attr("scikit_learn") is None
    with pytest.raises(TypeError, match="Expecting: regressor, got: classifier"):
        GBTRegressor().load_model(tmp_path / "clf.json")
    loaded = GBTClassifier()
    loaded.load_model(tmp_path / "clf.json")  # and takes the model's objective, as XGBoost's
    assert (loaded.objective, loaded.booster) == ("binary:logistic", "gbtree")
    out = subprocess.run([gbmodel, "importance", "--type=gain", str(tmp_path / "m.json")],
                         capture_output=True, text=True, check=True).stdout
    gain = np.zeros(X.shape[1])
    for line in out.splitlines():
        name, value = line.split("\t")
        gain[int(name[1:])] = float(value)
    np.testing.assert_allclose(clf.feature_importances_, gain / gain.sum(), rtol=1e-6)
    w = GBTClassifier(n_estimators=8, max_depth=3, importance_type="weight").fit(X, y)
    counts = np.zeros(X.shape[1])
    for t in w.get_booster().get_dump():
        for line in t.splitlines():
            if "[f" in line:
                counts[int(line.split("[f")[1].split("<")[0])] += 1
    np.testing.assert_allclose(w.feature_importances_, counts / counts.sum(), rtol=1e-6)


def test_predict_iteration_range_and_apply():
    X, y = load_diabetes(return_X_y=True)
    reg = GBTRegressor(n_estimators=10, max_depth=3).fit(X, y)
    b = reg.get_booster()
    np.testing.assert_array_equal(reg.predict(X, iteration_range=(0, 4)), b[0:4].predict(X))
    np.testing.assert_array_equal(reg.predict(X), b.predict(X))
    leaves = reg.apply(X)
    assert leaves.shape == (len(X), 10)
    np.testing.assert_array_equal(leaves, b.predict(X, pred_leaf=True))


def ranking_data(seed=0, queries=30):
    rng = np.random.RandomState(seed)
    sizes = rng.randint(3, 12, size=queries)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 5)).astype(np.float32)
    rel = X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)
    y = np.digitize(rel, [-1, 0, 1, 2]).astype(np.float32)  # grades 0..4
    return X, y, sizes


@pytest.mark.parametrize("objective", ["rank:ndcg", "rank:pairwise", "rank:map"])
def test_ranker_is_gbtrains_model_with_a_group_file(objective, gbtrain, tmp_path):
    X, y, sizes = ranking_data()
    if objective == "rank:map":
        y = (y >= 3).astype(np.float32)  # map takes binary relevance
    with open(tmp_path / "rank.csv", "w") as f:
        for row, label in zip(X, y):
            f.write(",".join([repr(float(label))] + ["%.9g" % v for v in row]) + "\n")
    with open(tmp_path / "rank.csv.group", "w") as f:
        f.write("".join(f"{s}\n" for s in sizes))
    run_gbtrain(gbtrain, [f"--objective={objective}", "--max_depth=3", "--eta=0.3", "--num_round=8",
                          "rank.csv", "m.json"], tmp_path)
    cli = read_model(tmp_path / "m.json")
    Xcsv = np.loadtxt(tmp_path / "rank.csv", delimiter=",", dtype=np.float32)[:, 1:]
    np.testing.assert_array_equal(Xcsv, X)
    rk = GBTRanker(objective=objective, n_estimators=8, max_depth=3, learning_rate=0.3)
    rk.fit(X, y, group=sizes)
    assert bytes(rk.get_booster().save_raw("gbt")) == cli
    qid = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    rk2 = GBTRanker(objective=objective, n_estimators=8, max_depth=3, learning_rate=0.3).fit(X, y, qid=qid)
    assert bytes(rk2.get_booster().save_raw("gbt")) == cli
    scores = rk.predict(X)
    assert scores.shape == (len(X),) and scores.dtype == np.float32
    np.testing.assert_array_equal(scores, gbt.Booster(model_file=tmp_path / "m.json").predict(X))


def test_ranker_conventions_and_eval_set():
    X, y, sizes = ranking_data()
    Xv, yv, sv = ranking_data(1, 10)
    rk = GBTRanker(n_estimators=200, learning_rate=0.3, early_stopping_rounds=3, eval_metric="ndcg@5")
    assert clone(rk).get_params() == rk.get_params()
    rk.fit(X, y, group=sizes, eval_set=[(Xv, yv)], eval_group=[sv])
    hist = rk.evals_result_["validation_0"]["ndcg@5"]
    assert rk.best_iteration_ == int(np.argmax(hist)) and len(hist) < 200
    assert rk.get_booster().get_param("objective") == "rank:ndcg"
    # better than a random order within queries: the top document's mean grade
    s = rk.predict(Xv)
    starts = np.r_[0, np.cumsum(sv)[:-1]]
    top = [yv[a + np.argmax(s[a:a + n])] for a, n in zip(starts, sv)]
    assert np.mean(top) > np.mean(yv) + 0.5
    assert rk.feature_importances_.sum() == pytest.approx(1, rel=1e-6)
    with pytest.raises(ValueError, match="`group` or `qid` is required"):
        GBTRanker(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="sum to"):
        GBTRanker(n_estimators=2).fit(X, y, group=sizes[:-1])
    with pytest.raises(ValueError, match="consecutive"):
        GBTRanker(n_estimators=2).fit(X[:4], y[:4], qid=[1, 2, 1, 2])


def test_histogram_pool_size_bounds_memory_not_the_model():
    # a pool of 2 histograms (0.0001 MB) drops them and rebuilds children from
    # their rows; the sums are integers, so the model is the unbounded pool's
    X, y = load_diabetes(return_X_y=True)
    kw = dict(n_estimators=3, grow_policy="lossguide", max_depth=63, max_leaves=0,
              min_child_weight=0)
    small = GBTRegressor(histogram_pool_size=0.0001, **kw).fit(X, y)
    unbounded = GBTRegressor(histogram_pool_size=0, **kw).fit(X, y)
    assert small.get_booster().save_raw("gbt") == unbounded.get_booster().save_raw("gbt")
    assert small.get_params()["histogram_pool_size"] == 0.0001


def test_set_params_after_fit_reaches_the_booster():
    # XGBoost's set_params passes the parameters to a fitted model's booster (test_eval_metrics'
    # check_precision_score sets eval_metric so and evaluates with get_booster().eval_set)
    rng = np.random.RandomState(0)
    X, y = rng.randn(60, 3), rng.randint(0, 2, 60)
    r = gbt.XGBRanker(n_estimators=2).fit(X, y, qid=np.zeros(60))
    r.set_params(eval_metric="pre@8", max_depth=3)
    assert "Xy-pre@8:" in r.get_booster().eval_set([(gbt.DMatrix(X, y), "Xy")])
    assert r.get_booster().get_param("max_depth") == "3"


def test_xgboost_estimator_conventions(tmp_path):
    # what XGBoost 3.2's estimators give a ported script (values read off XGBoost's sklearn.py)
    assert GBTRegressor().get_params()["objective"] == "reg:squarederror"
    assert gbt.XGBModel().get_params()["objective"] is None
    xp = GBTClassifier(n_jobs=2, random_state=np.random.RandomState(0), missing=1.0).get_xgb_params()
    assert xp["n_jobs"] == 2 and isinstance(xp["random_state"], int) and "missing" not in xp
    assert gbt.GBTRFRegressor(n_estimators=7).get_xgb_params()["num_parallel_tree"] == 7
    assert [c()._get_type() for c in (GBTClassifier, GBTRegressor, GBTRanker)] == \
        ["classifier", "regressor", "ranker"]
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(TypeError, match="NoneType"):
        GBTClassifier().fit(None, y)
    with pytest.raises(ValueError, match="Invalid classes"):
        GBTClassifier().fit(X, None)
    with pytest.raises(ValueError, match="contains NaN, infinity or a value too large"):
        GBTRegressor().fit(X, np.full(6, np.inf))
    with pytest.raises(NotImplementedError, match="multiple custom metrics"):
        GBTClassifier(n_estimators=1, eval_metric=[max, min]).fit(X, y, eval_set=[(X, y)])
    with pytest.raises(TypeError, match="Invalid type for the `eval_metric`"):
        GBTClassifier(n_estimators=1, eval_metric=[123]).fit(X, y, eval_set=[(X, y)])
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(X, columns=["a", "b"])
    clf = GBTClassifier(n_estimators=1).fit(df, y)
    with pytest.raises(ValueError, match="feature_names mismatch"):
        clf.predict(df[["b", "a"]])
    one = GBTClassifier(n_estimators=1).fit(df["a"], y)  # a Series is one feature
    assert list(one.feature_names_in_) == ["a"]
    reg = GBTRegressor(n_estimators=1, feature_types=["c", "q"], enable_categorical=True).fit(X % 3, y)
    reg.save_model(tmp_path / "reg.json")
    back = GBTRegressor()
    back.load_model(tmp_path / "reg.json")  # the model's feature types, categorical ones enabled (XGBoost's)
    assert back.feature_types == ["c", "q"] and back.enable_categorical is True
    with pytest.warns(FutureWarning, match="learning_rate"):  # XGBoost's transition for positional arguments
        assert gbt.GBTRFRegressor(0.5).learning_rate == 0.5
    with pytest.warns(FutureWarning, match="sample_weight"):
        GBTRegressor(n_estimators=1).fit(X, y, np.ones(6))


def test_ranker_qid_column():
    # XGBoost's special DataFrame column `qid`: the query ids, not a feature;
    # score() is the last metric (ndcg@32) on X's queries
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X, y, q = rng.normal(size=(40, 3)), rng.integers(0, 3, 40), np.repeat([0, 1], 20)
    df = pd.DataFrame(X, columns=["a", "b", "c"]).assign(qid=q)
    r = GBTRanker(n_estimators=3).fit(df, y, eval_set=[(df, y)])
    assert list(r.feature_names_in_) == ["a", "b", "c"]
    plain = GBTRanker(n_estimators=3).fit(X, y, qid=q)
    np.testing.assert_array_equal(r.predict(df), plain.predict(X))
    assert r.score(df, y) == pytest.approx(r.evals_result()["validation_0"]["ndcg@32"][-1], abs=1e-6)
    with pytest.raises(ValueError, match="qid"):
        GBTRanker(n_estimators=1).fit(df, y, qid=q)
    with pytest.raises(ValueError, match="Either `group` or `qid` is required"):
        r.fit(df, y, eval_set=[(X, y)])
    # a callable metric, as XGBoost's rankers: per query, averaged weighted by the query sizes
    from sklearn.metrics import roc_auc_score
    yb = (y > 0).astype(int)
    rm = GBTRanker(n_estimators=2, eval_metric=roc_auc_score).fit(X, yb, qid=q, eval_set=[(X, yb)], eval_qid=[q])
    p = rm.predict(X)
    want = (roc_auc_score(yb[:20], p[:20]) * 20 + roc_auc_score(yb[20:], p[20:]) * 20) / 40
    assert rm.evals_result()["validation_0"]["roc_auc_score"][-1] == pytest.approx(want, rel=1e-6)
