"""XGBoost's Python API on gbt, call by call: what `import gbt as xgb` relies on.
Expected values come from XGBoost itself (where installed) or by hand."""
import json
import os
import pickle
import re
import signal
import warnings

import numpy as np
import pytest

import gbt


def _binary(n=300, f=5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, f)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(np.float32)
    return X, y


# -- names
def test_xgboost_names_are_the_same_objects():
    assert gbt.DMatrix is gbt.Dataset
    assert issubclass(gbt.QuantileDMatrix, gbt.Dataset)
    assert gbt.XGBClassifier is gbt.GBTClassifier and gbt.XGBRegressor is gbt.GBTRegressor
    assert gbt.XGBRanker is gbt.GBTRanker and gbt.XGBModel is gbt.GBTModel
    assert issubclass(gbt.XGBClassifier, gbt.XGBModel)
    for name in ("TrainingCallback", "EarlyStopping", "EvaluationMonitor", "LearningRateScheduler",
                 "TrainingCheckPoint"):
        assert hasattr(gbt.callback, name), name
    assert callable(gbt.cv)


# -- defect 2: repeated eval_metric pairs
def test_params_as_pairs_keep_every_eval_metric():
    X, y = _binary()
    d = gbt.DMatrix(X, y)
    params = [("objective", "binary:logistic"), ("eval_metric", "logloss"), ("eval_metric", "error"),
              ("eval_metric", "auc"), ("max_depth", 2)]
    hist = {}
    gbt.train(params, d, 3, [(d, "train")], evals_result=hist, verbose_eval=False)
    assert list(hist["train"]) == ["logloss", "error", "auc"]
    # the error by hand from the same model's predictions
    b = gbt.train(params, d, 3, verbose_eval=False)
    assert hist["train"]["error"][-1] == pytest.approx(float(np.mean((b.predict(d) > 0.5) != y)))
    assert gbt.Booster(params).eval_metric_names() == ["logloss", "error", "auc"]


# -- positional arguments as XGBoost takes them
def test_train_takes_evals_by_position():
    X, y = _binary()
    d = gbt.DMatrix(X, y)
    hist = {}
    b = gbt.train({"objective": "binary:logistic"}, d, 4, [(d, "train")], None, None, None, hist, False)
    assert b.num_boosted_rounds() == 4 and len(hist["train"]["logloss"]) == 4


# -- KeyboardInterrupt keeps the rounds done
def test_keyboard_interrupt_in_a_callback_keeps_the_finished_rounds():
    X, y = _binary()
    d = gbt.DMatrix(X, y)

    class Interrupt(gbt.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            if epoch == 4:
                raise KeyboardInterrupt
            return False

    hist = {}
    with pytest.warns(RuntimeWarning, match="keeping the 5 rounds finished"):
        b = gbt.train({"objective": "binary:logistic"}, d, 100, evals=[(d, "t")], evals_result=hist,
                      callbacks=[Interrupt()], verbose_eval=False)
    assert b.num_boosted_rounds() == 5 and len(hist["t"]["logloss"]) == 5
    whole = gbt.train({"objective": "binary:logistic"}, d, 5, verbose_eval=False)
    assert bytes(b.save_raw("gbt")) == bytes(whole.save_raw("gbt"))


@pytest.fixture
def sigint_raises():
    """Ctrl-C as in an interactive Python: a process started in the background
    by a non-interactive shell inherits SIGINT ignored, and Python then leaves
    it ignored, so these tests install the usual handler for their duration."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_sigint_inside_a_round_drops_that_round_only(sigint_raises):
    X, y = _binary()
    d = gbt.DMatrix(X, y)
    calls = []

    def logistic(preds, data):  # binary:logistic's gradients; SIGINT arrives in round 3
        calls.append(1)
        if len(calls) == 4:
            os.kill(os.getpid(), signal.SIGINT)
        p = 1 / (1 + np.exp(-preds))
        return p - data.get_label(), p * (1 - p)

    with pytest.warns(RuntimeWarning, match="keeping the 3 rounds finished"):
        b = gbt.train({"objective": "binary:logistic"}, d, 50, obj=logistic, verbose_eval=False)
    assert b.num_boosted_rounds() == 3


def test_sigint_while_the_library_trains_stops_after_that_round(sigint_raises):
    """Ctrl-C while the C driver runs a round: the KeyboardInterrupt surfaces on
    entry to the next Python callback (where ctypes would only print it), and
    the training stops after the round in progress, keeping it."""
    import threading
    X, y = _binary()
    d = gbt.DMatrix(X, y)
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    with pytest.warns(RuntimeWarning, match="keeping the [0-9]+ rounds? finished"):
        b = gbt.train({"objective": "binary:logistic", "max_depth": 2}, d, 200000, evals=[(d, "t")],
                      verbose_eval=False)
    assert 0 < b.num_boosted_rounds() < 200000
    whole = gbt.train({"objective": "binary:logistic", "max_depth": 2}, d, b.num_boosted_rounds(),
                      verbose_eval=False)
    assert bytes(b.save_raw("gbt")) == bytes(whole.save_raw("gbt"))


def test_keyboard_interrupt_in_fit_keeps_the_model():
    X, y = _binary()

    class Interrupt(gbt.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            if epoch == 2:
                raise KeyboardInterrupt
            return False

    clf = gbt.XGBClassifier(n_estimators=50, callbacks=[Interrupt()])
    with pytest.warns(RuntimeWarning, match="keeping the 3 rounds"):
        clf.fit(X, y, verbose=False)
    assert clf.get_booster().num_boosted_rounds() == 3
    assert clf.predict(X).shape == (len(y),)


# -- ?format= URIs
@pytest.mark.filterwarnings("ignore:.*Text file input has been deprecated")
def test_uri_suffixes_map_to_the_reader_options(tmp_path):
    X, y = _binary(20, 3)
    svm = tmp_path / "d.svm"
    with open(svm, "w") as f:  # one-based indices, as agaricus.txt.train
        for row, lab in zip(X, y):
            f.write(f"{lab:g} " + " ".join(f"{j + 1}:{v:.9g}" for j, v in enumerate(row)) + "\n")
    d = gbt.DMatrix(f"{svm}?format=libsvm&indexing_mode=1")
    assert d.shape == (20, 3)
    np.testing.assert_array_equal(d.get_label(), y)
    # XGBoost reads indices as zero-based unless indexing_mode > 0 (column 0
    # empty); a negative indexing_mode guesses (one-based: no index 0 here)
    assert gbt.DMatrix(f"{svm}?format=libsvm&indexing_mode=-1").shape == (20, 3)
    assert gbt.DMatrix(f"{svm}?format=libsvm").shape == (20, 4)
    assert gbt.DMatrix(f"{svm}?format=libsvm#d.cache").shape == (20, 4)
    xgb = pytest.importorskip("xgboost")
    assert xgb.DMatrix(f"{svm}?format=libsvm").num_col() == 4
    assert xgb.DMatrix(f"{svm}?format=libsvm&indexing_mode=-1").num_col() == 3
    csv = tmp_path / "d.csv"
    np.savetxt(csv, np.column_stack([y, X]), delimiter=",", fmt="%.9g")
    # XGBoost's CSV has no label column unless label_column says so
    assert gbt.DMatrix(f"{csv}?format=csv").shape == (20, 4)
    dl = gbt.DMatrix(f"{csv}?format=csv&label_column=0")
    assert dl.shape == (20, 3)
    np.testing.assert_array_equal(dl.get_label(), y)
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        gbt.DMatrix(f"{csv}?format=csv&colour=red")
    with pytest.raises(ValueError, match="expects libsvm, csv or tsv, got 'parquet'"):
        gbt.DMatrix(f"{csv}?format=parquet")


# -- save_binary
@pytest.mark.parametrize("sparse", [False, True])
def test_save_binary_round_trip(tmp_path, sparse):
    X, y = _binary(40, 4)
    X[3, 1] = np.nan
    data = X
    if sparse:
        sp = pytest.importorskip("scipy.sparse")
        Z = X.copy()
        Z[Z < 0] = 0
        data = sp.csr_matrix(np.nan_to_num(Z))
    d = gbt.DMatrix(data, y, weight=np.repeat([0.5, 2.0], [10, 30]), base_margin=np.arange(40) / 40,
                    group=[10, 30], feature_names=["a", "b", "c", "d"])
    path = tmp_path / "d.buffer"
    d.save_binary(path)
    e = gbt.DMatrix(str(path))
    assert e.shape == d.shape and e.feature_names == ["a", "b", "c", "d"]
    for field in ("label", "weight", "base_margin"):
        np.testing.assert_array_equal(e.get_float_info(field), d.get_float_info(field))
    np.testing.assert_array_equal(e.get_uint_info("group_ptr"), [0, 10, 40])
    assert e.num_nonmissing() == d.num_nonmissing()
    b = gbt.train({"objective": "rank:pairwise"}, d, 3, verbose_eval=False)
    np.testing.assert_array_equal(b.predict(e), b.predict(d))
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]


# -- ranking weights: one per query group, as XGBoost takes them
def test_ranking_weights_per_group_match_xgboost():
    xgb = pytest.importorskip("xgboost")
    rng = np.random.RandomState(0)
    sizes = rng.randint(3, 10, size=12)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 3)).astype(np.float32)
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=n), [-1, 0, 1]).astype(np.float32)
    w = rng.uniform(0.2, 3.0, size=len(sizes)).astype(np.float32)
    p = {"objective": "rank:ndcg", "max_depth": 2, "eta": 0.3, "base_score": 0.5}
    dx = xgb.DMatrix(X, y, weight=w, group=sizes)
    d = gbt.DMatrix(X, y, weight=w)  # before the groups, as XGBoost allows
    d.set_group(sizes)
    np.testing.assert_array_equal(d.get_weight(), w)
    np.testing.assert_allclose(gbt.train(p, d, 4).predict(d), xgb.train(p, dx, 4).predict(dx), atol=1e-6)
    with pytest.raises(ValueError, match="equal to the number of query groups"):
        gbt.XGBRanker(n_estimators=1).fit(X, y, group=sizes, sample_weight=y)
    with pytest.raises(ValueError, match="equal to the number of query groups"):
        gbt.train(p, gbt.DMatrix(X, y, weight=w[:5], group=sizes), 1)


# -- lambdarank_unbiased: XGBoost's position biases and predictions on position-biased clicks
def test_lambdarank_unbiased_matches_xgboost():
    xgb = pytest.importorskip("xgboost")
    rng = np.random.RandomState(1)
    sizes = rng.randint(5, 15, size=40)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 3)).astype(np.float32)
    pos = np.concatenate([np.arange(s) for s in sizes])  # the order shown: rows in their query
    click = ((X[:, 0] + 0.3 * rng.normal(size=n) > 0.3) & (rng.uniform(size=n) < 1.0 / (1 + pos)))
    y = click.astype(np.float32)
    p = {"objective": "rank:ndcg", "max_depth": 2, "eta": 0.3, "base_score": 0.5, "lambdarank_unbiased": True,
         "lambdarank_num_pair_per_sample": 8, "lambdarank_bias_norm": 0.5}
    dx, d = xgb.DMatrix(X, y, group=sizes), gbt.DMatrix(X, y, group=sizes)
    bx, b = xgb.train(p, dx, 5), gbt.train(p, d, 5)
    np.testing.assert_allclose(b.predict(d), bx.predict(dx), atol=1e-6)
    ours, theirs = (json.loads(m.save_config())["learner"]["objective"] for m in (b, bx))
    for key in ("ti+", "tj-"):
        assert len(ours[key]) == 8 and ours[key][0] == 1.0 and np.ptp(ours[key]) > 0.1
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5)
    plain = gbt.train(dict(p, lambdarank_unbiased=False), d, 5).predict(d)
    assert np.max(np.abs(plain - b.predict(d))) > 0.1


def test_save_binary_into_a_missing_directory_leaves_nothing(tmp_path):
    d = gbt.DMatrix(np.ones((3, 2), np.float32))
    with pytest.raises(OSError):
        d.save_binary(tmp_path / "no" / "such.buffer")
    assert os.listdir(tmp_path) == []


# -- set_info and the uint fields
def test_set_info_and_empty_fields():
    X, y = _binary(30, 2)
    d = gbt.DMatrix(X)
    assert d.get_label().size == 0 and d.get_weight().size == 0  # XGBoost gives empty arrays
    d.set_info(label=y, weight=np.full(30, 2.0), qid=np.repeat([1, 2, 3], 10), feature_names=["u", "v"])
    np.testing.assert_array_equal(d.get_label(), y)
    np.testing.assert_array_equal(d.get_uint_info("group_ptr"), [0, 10, 20, 30])
    assert d.feature_names == ["u", "v"]
    d.set_uint_info("group", [15, 15])
    np.testing.assert_array_equal(d.get_group(), [15, 15])
    d.set_info(feature_weights=[1.0, 3.0])
    np.testing.assert_array_equal(d.get_float_info("feature_weights"), [1.0, 3.0])
    with pytest.raises(ValueError, match="feature_weights"):
        d.set_info(feature_weights=np.ones(3))  # one per feature
    d.set_info(feature_weights=np.empty(0))  # XGBoost's removal
    assert d.get_float_info("feature_weights").size == 0
    m = gbt.DMatrix(np.zeros((4, 2), np.float32))
    m.set_base_margin(np.arange(12, dtype=np.float32).reshape(4, 3))  # XGBoost reads it back as 4 x 3
    assert m.get_base_margin().shape == (4, 3) and m.get_base_margin()[1, 0] == 3
    m.set_base_margin(np.ones(4, np.float32))
    assert m.get_base_margin().shape == (4,)
    with pytest.raises(TypeError, match="Not supported type"), pytest.warns(UserWarning, match="Unknown data"):
        gbt.DMatrix(object())  # as XGBoost: a warning, then TypeError
    with pytest.raises(ValueError, match="categorical"):
        gbt.DMatrix(X, feature_types=["q", "c"])


# -- XGBoost-only parameters
def test_xgboost_only_parameters_are_accepted_with_a_warning():
    X, y = _binary()
    d = gbt.DMatrix(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the values that mean what gbt does: no warning
        a = gbt.train({"tree_method": "hist", "booster": "gbtree", "num_parallel_tree": 1,
                       "validate_parameters": True, "sampling_method": "uniform"}, d, 3, verbose_eval=False)
    with pytest.warns(UserWarning, match="sampling_method='gradient_based' is ignored"):
        b = gbt.train({"sampling_method": "gradient_based"}, d, 3, verbose_eval=False)
    assert bytes(a.save_raw("gbt")) == bytes(b.save_raw("gbt"))
    with pytest.warns(UserWarning, match="max_dpeth"):
        gbt.train({"max_dpeth": 3}, d, 1)  # an unknown name: XGBoost's "not used" warning


def test_estimators_take_xgboost_arguments():
    X, y = _binary()
    clf = gbt.XGBClassifier(n_estimators=5, eta=0.5, tree_method="hist", enable_categorical=False,
                            booster="gbtree")
    assert clf.get_params()["eta"] == 0.5
    from sklearn.base import clone

    assert clone(clf).get_params()["eta"] == 0.5
    clf.fit(X, y, eval_set=[(X, y)], verbose=False)
    ref = gbt.XGBClassifier(n_estimators=5, learning_rate=0.5).fit(X, y, verbose=False)
    assert bytes(clf.get_booster().save_raw("gbt")) == bytes(ref.get_booster().save_raw("gbt"))
    assert list(clf.evals_result()["validation_0"]) == ["logloss"]
    clf.set_params(reg_lambda=2.0, gamma=0.1)
    assert clf.get_params()["reg_lambda"] == 2.0
    more = gbt.XGBClassifier(n_estimators=3).fit(X, y, xgb_model=ref, verbose=False)
    assert more.get_booster().num_boosted_rounds() == 8


# -- predict(strict_shape=), against XGBoost's shapes
def test_strict_shape_matches_xgboost():
    xgb = pytest.importorskip("xgboost")
    X, y = _binary(60, 3)
    y3 = (np.arange(60) % 3).astype(np.float32)
    for params, label in (({"objective": "binary:logistic"}, y), ({"objective": "multi:softprob", "num_class": 3}, y3),
                          ({"objective": "reg:squarederror"}, y)):
        a = gbt.train(params, gbt.DMatrix(X, label), 4, verbose_eval=False)
        b = xgb.train(params, xgb.DMatrix(X, label), 4)
        for kw in ({}, {"output_margin": True}, {"pred_leaf": True}, {"pred_contribs": True},
                   {"pred_interactions": True}, {"pred_leaf": True, "iteration_range": (0, 3)}):
            got = a.predict(gbt.DMatrix(X), strict_shape=True, **kw).shape
            want = b.predict(xgb.DMatrix(X), strict_shape=True, **kw).shape
            assert got == want, (params, kw)


# -- dump_model with a feature map
def test_dump_model_with_fmap(tmp_path):
    X, y = _binary(100, 3)
    b = gbt.train({"objective": "binary:logistic", "max_depth": 2}, gbt.DMatrix(X, y), 2, verbose_eval=False)
    fmap = tmp_path / "fmap.txt"
    fmap.write_text("0\tage\tq\n1\theight\tq\n2\tf2x\tq\n")
    out = tmp_path / "dump.txt"
    b.dump_model(out, fmap)
    text = out.read_text()
    plain = b.get_dump()
    assert "booster[0]:" in text and "[age<" in text and "[f0<" not in text
    assert text.count("leaf=") == sum(t.count("leaf=") for t in plain)
    assert all("f0" not in t for t in b.get_dump(fmap=str(fmap), dump_format="json"))
    fmap.write_text("zero age q\n")
    with pytest.raises(ValueError, match="fmap.txt:1"):
        b.dump_model(out, fmap)


# -- gbt.cv against xgboost.cv: the same folds, close metrics
def test_cv_matches_xgboost():
    xgb = pytest.importorskip("xgboost")
    pd = pytest.importorskip("pandas")
    X, y = _binary(400, 4)
    params = {"objective": "binary:logistic", "max_depth": 3}
    a = gbt.cv(params, gbt.DMatrix(X, y), 5, nfold=4, metrics=["logloss", "error"], seed=3)
    b = xgb.cv(params, xgb.DMatrix(X, y), 5, nfold=4, metrics=["logloss", "error"], seed=3)
    assert isinstance(a, pd.DataFrame) and list(a.columns) == list(b.columns) and len(a) == len(b)
    np.testing.assert_allclose(a["test-logloss-mean"], b["test-logloss-mean"], rtol=0.03)
    np.testing.assert_allclose(a["train-logloss-std"], b["train-logloss-std"], atol=0.01)
    d = gbt.cv(params, gbt.DMatrix(X, y), 5, nfold=4, seed=3, as_pandas=False, stratified=True,
               early_stopping_rounds=2)
    assert isinstance(d, dict) and set(d) == {"train-logloss-mean", "train-logloss-std",
                                              "test-logloss-mean", "test-logloss-std"}
    # a fold by hand: the same booster trained on the other rows
    folds = [(np.arange(100, 400), np.arange(100)), (np.arange(100), np.arange(100, 400))]
    r = gbt.cv(params, gbt.DMatrix(X, y), 2, folds=folds, as_pandas=False)
    hand = []
    for tr, te in folds:
        bst = gbt.train(params, gbt.DMatrix(X[tr], y[tr]), 2, verbose_eval=False)
        hand.append(bst.eval_metrics(gbt.DMatrix(X[te], y[te]))["logloss"])
    assert r["test-logloss-mean"][-1] == pytest.approx(np.mean(hand), rel=1e-6)
    assert r["test-logloss-std"][-1] == pytest.approx(np.std(hand), rel=1e-5)


# -- early stopping: XGBoost 3.2's semantics, side by side with XGBoost
def _noisy(n=400, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.8 * rng.normal(size=n) > 0).astype(np.float32)
    return X, y


_NOISY_PARAMS = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.3}


def _noisy_sets(lib):
    """_noisy()'s 400 rows as lib's training (300) and validation (100) sets."""
    X, y = _noisy()
    return lib.DMatrix(X[:300], y[:300]), lib.DMatrix(X[300:], y[300:])


def test_early_stopping_keeps_the_rounds_as_xgboost():
    xgb = pytest.importorskip("xgboost")
    p = _NOISY_PARAMS
    got = {}
    for lib in (xgb, gbt):
        dtr, dva = _noisy_sets(lib)
        full = lib.train(p, dtr, 200, evals=[(dva, "valid")], early_stopping_rounds=5, verbose_eval=False)
        cut = lib.train(p, dtr, 200, evals=[(dva, "valid")], verbose_eval=False,
                        callbacks=[lib.callback.EarlyStopping(rounds=5, save_best=True)])
        best = full.best_iteration
        got[lib.__name__] = dict(
            rounds=full.num_boosted_rounds(), best=best, score=full.best_score, cut=cut.num_boosted_rounds(),
            cut_best=cut.best_iteration, all=full.predict(dva),
            # Booster.predict uses every round; the best ones only through iteration_range
            same=np.array_equal(cut.predict(dva), full.predict(dva, iteration_range=(0, best + 1))),
            slice_best=hasattr(full[: best + 1], "best_iteration"),
            plain=hasattr(lib.train(p, dtr, 2, verbose_eval=False), "best_iteration"),
            save_best_default=lib.callback.EarlyStopping(rounds=2).save_best)
    x, g = got["xgboost"], got["gbt"]
    assert g["rounds"] == x["rounds"] == x["best"] + 5 + 1 and g["best"] == x["best"]
    assert g["score"] == pytest.approx(x["score"], rel=1e-6)
    assert g["cut"] == x["cut"] == x["best"] + 1 and g["cut_best"] == x["cut_best"] == x["best"]
    np.testing.assert_allclose(g["all"], x["all"], atol=1e-5)
    assert g["same"] and x["same"]
    assert g["slice_best"] is x["slice_best"] is False and g["plain"] is x["plain"] is False
    assert g["save_best_default"] is x["save_best_default"] is False


def test_early_stopping_record_crosses_to_and_from_xgboost(tmp_path):
    # best_iteration and best_score are learner attributes in XGBoost's JSON, both ways
    xgb = pytest.importorskip("xgboost")
    X, y = _noisy(300, 1)
    p = {"objective": "binary:logistic", "max_depth": 2, "eta": 0.5}
    b = gbt.train(p, gbt.DMatrix(X[:200], y[:200]), 100, evals=[(gbt.DMatrix(X[200:], y[200:]), "v")],
                  early_stopping_rounds=3, verbose_eval=False)
    b.save_model(tmp_path / "g.json", format="xgboost")
    x = xgb.Booster(model_file=str(tmp_path / "g.json"))
    assert (x.best_iteration, x.best_score) == (b.best_iteration, b.best_score)
    assert x.num_boosted_rounds() == b.num_boosted_rounds()
    xb = xgb.train(p, xgb.DMatrix(X[:200], y[:200]), 100, evals=[(xgb.DMatrix(X[200:], y[200:]), "v")],
                   early_stopping_rounds=3, verbose_eval=False)
    xb.save_model(str(tmp_path / "x.json"))
    g = gbt.Booster(model_file=tmp_path / "x.json")
    assert (g.best_iteration, g.best_score) == (xb.best_iteration, xb.best_score)
    assert g.num_boosted_rounds() == xb.num_boosted_rounds()


def test_early_stopping_continued_and_set_by_hand_as_xgboost():
    xgb = pytest.importorskip("xgboost")
    p = _NOISY_PARAMS
    got = {}
    for lib in (xgb, gbt):
        dtr, dva = _noisy_sets(lib)
        first = lib.train(p, dtr, 8, evals=[(dva, "v")], early_stopping_rounds=50, verbose_eval=False)
        # continued: rounds counted from the model's start; without early stopping the record stays
        more = lib.train(p, dtr, 3, evals=[(dva, "v")], early_stopping_rounds=5, verbose_eval=False,
                         xgb_model=first)
        plain = lib.train(p, dtr, 3, evals=[(dva, "v")], verbose_eval=False, xgb_model=first)
        c = lib.train(p, dtr, 5, verbose_eval=False)
        c.best_iteration = 2
        r = [first.best_iteration, more.num_boosted_rounds(), more.best_iteration, plain.best_iteration,
             c.best_iteration, hasattr(c, "best_score"), "best_score" in c.attributes()]
        c.best_score = 0.25
        got[lib.__name__] = r + [c.best_score]
    assert got["gbt"] == got["xgboost"] == [7, 11, 10, 7, 2, False, False, 0.25]


def test_estimators_predict_with_the_best_round_as_xgboost():
    xgb = pytest.importorskip("xgboost")
    X, y = _noisy(400, 2)
    got = {}
    for lib in (xgb, gbt):
        c = lib.XGBClassifier(n_estimators=200, max_depth=3, learning_rate=0.3, early_stopping_rounds=5)
        c.fit(X[:300], y[:300], eval_set=[(X[300:], y[300:])], verbose=False)
        bst, dva = c.get_booster(), lib.DMatrix(X[300:])
        best = c.best_iteration
        got[lib.__name__] = (bst.num_boosted_rounds(), best, c.best_score,
                             np.array_equal(c.predict_proba(X[300:])[:, 1],
                                            bst.predict(dva, iteration_range=(0, best + 1))),
                             c.apply(X[300:]).shape)
    x, g = got["xgboost"], got["gbt"]
    assert g[:2] == x[:2] and g[0] == g[1] + 5 + 1 and g[2] == pytest.approx(x[2], rel=1e-6)
    assert g[3] and x[3] and g[4] == x[4] == (100, x[1] + 1)
    r = gbt.XGBRegressor(n_estimators=3).fit(X, y)
    assert not hasattr(r, "best_iteration") and r.best_iteration_ is None


def test_cv_early_stopping_as_xgboost():
    xgb = pytest.importorskip("xgboost")
    X, y = _noisy(300, 3)
    p = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.5}
    a = gbt.cv(p, gbt.DMatrix(X, y), 100, nfold=3, early_stopping_rounds=3, as_pandas=False, seed=0)
    b = xgb.cv(p, xgb.DMatrix(X, y), 100, nfold=3, early_stopping_rounds=3, as_pandas=False, seed=0)
    # the result ends at the best round (its rows: best + 1)
    assert len(a["test-logloss-mean"]) == len(b["test-logloss-mean"]) < 100
    for lib in (gbt, xgb):
        with pytest.raises(ValueError, match="save_best"):
            lib.cv(p, lib.DMatrix(X, y), 5, nfold=3,
                   callbacks=[lib.callback.EarlyStopping(rounds=2, save_best=True)])


# -- callbacks
def test_learning_rate_scheduler_and_checkpoints(tmp_path):
    X, y = _binary()
    d = gbt.DMatrix(X, y)
    rates = [0.3, 0.1, 0.05, 0.05]
    a = gbt.train({"objective": "binary:logistic"}, d, 4, verbose_eval=False,
                  callbacks=[gbt.callback.LearningRateScheduler(rates)])
    # by hand: round r + 1 uses rates[r] (XGBoost's callback sets it after round r)
    b = gbt.train({"objective": "binary:logistic", "eta": 0.3}, d, 1, verbose_eval=False)
    for r in range(3):
        b = gbt.train({"eta": rates[r]}, d, 1, xgb_model=b, verbose_eval=False)
    np.testing.assert_array_equal(a.predict(d), b.predict(d))
    gbt.train({"objective": "binary:logistic"}, d, 7, verbose_eval=False,
              callbacks=[gbt.callback.TrainingCheckPoint(tmp_path, name="ck", interval=3)])
    assert sorted(os.listdir(tmp_path)) == ["ck_3.json", "ck_6.json"]
    assert gbt.Booster(model_file=str(tmp_path / "ck_3.json")).num_boosted_rounds() == 4


def test_booster_takes_cache_and_iterates():
    X, y = _binary()
    d = gbt.DMatrix(X, y)
    b = gbt.Booster({"objective": "binary:logistic"}, [d])
    for i in range(3):
        b.update(d, i)
    rounds = [t for t in b]
    assert len(rounds) == 3 and all(t.num_boosted_rounds() == 1 for t in rounds)
    cfg = __import__("json").loads(b.save_config())
    assert cfg["learner"]["objective"]["name"] == "binary:logistic"
    # base_score as XGBoost 3.2 reports it: a list of predictions, here the label mean
    base = __import__("json").loads(cfg["learner"]["learner_model_param"]["base_score"])
    assert base == [pytest.approx(y.mean(), rel=1e-5)]
    assert pickle.loads(pickle.dumps(b)).num_boosted_rounds() == 3


def test_inplace_predict_and_config():
    X, y = _binary()
    b = gbt.train({"objective": "binary:logistic"}, gbt.DMatrix(X, y), 3, verbose_eval=False)
    np.testing.assert_array_equal(b.inplace_predict(X), b.predict(gbt.DMatrix(X)))
    np.testing.assert_array_equal(b.inplace_predict(X, predict_type="margin"),
                                  b.predict(gbt.DMatrix(X), output_margin=True))
    m = np.full(len(y), 0.5, np.float32)
    np.testing.assert_allclose(b.inplace_predict(X, predict_type="margin", base_margin=m),
                               b.predict(gbt.DMatrix(X, base_margin=m), output_margin=True))
    import logging

    with gbt.config_context(verbosity=0):
        assert gbt.get_config()["verbosity"] == 0
        assert logging.getLogger("gbt").getEffectiveLevel() > logging.CRITICAL
    assert gbt.get_config()["verbosity"] == 1
    with pytest.raises(ValueError, match="verbosity"):
        gbt.set_config(verbosity=7)
    # XGBoost's: nthread 0, None changes nothing, each thread its own configuration
    xgb = pytest.importorskip("xgboost")
    assert gbt.get_config()["nthread"] == xgb.get_config()["nthread"] == 0
    import threading

    seen = []
    with gbt.config_context(verbosity=3, nthread=None):
        assert gbt.get_config()["verbosity"] == 3 and gbt.get_config()["nthread"] == 0
        t = threading.Thread(target=lambda: seen.append(gbt.get_config()["verbosity"]))
        t.start()
        t.join()
    assert seen == [1]


def test_cv_on_sparse_data_is_cv_on_the_dense_copy():
    sp = pytest.importorskip("scipy.sparse")
    X, y = _binary(200, 4)
    X[X < -0.5] = 0
    dense = X.copy()
    dense[dense == 0] = np.nan  # absent entries of the CSR matrix are missing
    params = {"objective": "binary:logistic", "max_depth": 3}
    a = gbt.cv(params, gbt.DMatrix(sp.csr_matrix(X), y), 3, nfold=3, seed=1, as_pandas=False)
    b = gbt.cv(params, gbt.DMatrix(dense, y), 3, nfold=3, seed=1, as_pandas=False)
    assert a == b


# -- a custom objective with num_class: XGBoost 3.2 trains multi:softmax
def test_custom_multiclass_objective_predicts_classes_as_xgboost():
    rng = np.random.RandomState(0)
    X, y = rng.randn(200, 4), rng.randint(0, 3, 200)

    def softprob(predt, d):
        predt = predt.reshape(-1, 3)
        lab = d.get_label().astype(int)
        p = np.exp(predt - predt.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        g = p.copy()
        g[np.arange(len(lab)), lab] -= 1
        return g, np.maximum(2 * p * (1 - p), 1e-6)

    params = {"num_class": 3, "disable_default_eval_metric": 1, "max_depth": 3}
    d = gbt.DMatrix(X, y)
    b = gbt.train(params, d, 5, obj=softprob)
    margin = b.predict(d, output_margin=True)
    assert margin.shape == (200, 3)
    np.testing.assert_array_equal(b.predict(d), margin.argmax(1))  # the class, not probabilities
    xgb = pytest.importorskip("xgboost")
    xb = xgb.train(params, xgb.DMatrix(X, y), 5, obj=softprob)
    assert xb.predict(xgb.DMatrix(X)).shape == b.predict(d).shape == (200,)


@pytest.mark.parametrize("kind", ["binary", "multiclass", "categorical"])
def test_ubjson_models_both_ways_with_xgboost(tmp_path, kind):
    """XGBoost's .ubj and save_raw() bytes load in gbt and predict what XGBoost predicts; gbt's
    .ubj and save_raw("ubj") load in XGBoost and predict what gbt predicts; gbt's UBJSON read
    and written again is the same bytes."""
    xgb = pytest.importorskip("xgboost")
    X, y = _binary(200, 4)
    params = {"objective": "binary:logistic", "max_depth": 3}
    types = None
    if kind == "multiclass":
        y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5]).astype(np.float32)
        params = {"objective": "multi:softprob", "num_class": 3, "max_depth": 3}
    elif kind == "categorical":
        X[:, 1] = np.floor(np.abs(X[:, 1]) * 3) % 6
        y = ((X[:, 1] % 2 == 0) ^ (X[:, 0] > 0)).astype(np.float32)
        types = ["q", "c", "q", "q"]
        params = dict(params, max_cat_to_onehot=1)
    theirs = xgb.train(params, xgb.DMatrix(X, y, feature_types=types, enable_categorical=bool(types)), 4)
    want = theirs.predict(xgb.DMatrix(X, feature_types=types, enable_categorical=bool(types)), output_margin=True)
    theirs.save_model(str(tmp_path / "x.ubj"))
    for mine in (gbt.Booster(model_file=str(tmp_path / "x.ubj")), gbt.Booster(model_file=theirs.save_raw())):
        np.testing.assert_allclose(mine.predict(gbt.Dataset(X), output_margin=True), want, rtol=1e-6, atol=1e-6)
    mine.save_model(str(tmp_path / "g.ubj"))
    raw = mine.save_raw("ubj")
    assert open(tmp_path / "g.ubj", "rb").read() == bytes(raw) and mine.save_raw() == raw  # XGBoost's default
    for back in (xgb.Booster(model_file=str(tmp_path / "g.ubj")), xgb.Booster(model_file=raw)):
        got = back.predict(xgb.DMatrix(X, feature_types=types, enable_categorical=bool(types)), output_margin=True)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # raw_format="json" is XGBoost's JSON schema, as XGBoost's own save_raw gives it
    as_json = json.loads(mine.save_raw("json"))
    assert as_json.keys() == json.loads(theirs.save_raw("json")).keys()
    got = xgb.Booster(model_file=mine.save_raw("json")).predict(
        xgb.DMatrix(X, feature_types=types, enable_categorical=bool(types)), output_margin=True)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    again = gbt.Booster()
    again.load_model(raw)
    assert again.save_raw("ubj") == raw


@pytest.mark.parametrize("objective", ["binary:logistic", "reg:squarederror"])
def test_xgboost_formats_round_trip_exactly(tmp_path, objective):
    """A gbt model saved in XGBoost's JSON and UBJSON loads back predicting the same bits and dumping
    the same text (XGBoost's own save and load are exact; test_basic and test_unicode_path of its
    suite), and XGBoost's dump of the file numbers the nodes as gbt's does: one-hot data where gbt
    sends the missing rows left and numbers that child 2; a label mean near 0.3 that a float does
    not hold exactly (before, 133 of 200 raw scores moved by up to 3e-8)."""
    rng = np.random.default_rng(1)
    X = np.where(rng.random((200, 4)) < 0.5, 1.0, np.nan).astype(np.float32)
    if objective == "binary:logistic":
        y = (rng.random(200) < 0.2 + 0.4 * (X[:, 0] == 1)).astype(np.float32)
    else:
        rng.random(200)  # the binary labels' draws, so X and the noise are as measured
        y = (0.3 + 0.01 * rng.normal(size=200) + 0.01 * (X[:, 0] == 1)).astype(np.float32)
    b = gbt.train({"objective": objective, "max_depth": 2, "eta": 1}, gbt.DMatrix(X, label=y), 2)
    margin = b.predict(gbt.DMatrix(X), output_margin=True)
    assert "yes=2,no=1" in b.get_dump()[0]
    for name in ("m.ubj", "m.json"):
        b.save_model(tmp_path / name, format="xgboost")
        back = gbt.Booster(model_file=tmp_path / name)
        assert back.get_dump() == b.get_dump()
        np.testing.assert_array_equal(back.predict(gbt.DMatrix(X), output_margin=True), margin)
        back.save_model(tmp_path / ("again." + name), format="xgboost")
        assert (tmp_path / ("again." + name)).read_bytes() == (tmp_path / name).read_bytes()
    xgb = pytest.importorskip("xgboost")
    ids = re.compile(r"(\d+):(?:\[[^]]*\] yes=(\d+),no=(\d+),missing=(\d+)|leaf)")
    assert [ids.findall(t) for t in xgb.Booster(model_file=tmp_path / "m.ubj").get_dump()] == \
        [ids.findall(t) for t in b.get_dump()]


def test_save_raw_formats_refused_clearly(tmp_path):
    bst = gbt.train({"max_depth": 2}, gbt.Dataset(*_binary(50, 2)), 1)
    with pytest.raises(ValueError, match="Unknown model format.*'ubj'.*'json'.*'gbt'.*old binary format"):
        bst.save_raw("deprecated")
    with pytest.raises(ValueError, match="UBJSON"):
        bst.save_model(str(tmp_path / "m.ubj"), format="gbt")
    assert not (tmp_path / "m.ubj").exists()
    # a model XGBoost's format cannot hold (a category name that is not ASCII): refused, naming
    # gbt's own format, which keeps it
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"a": pd.Categorical(["\u00e9", "b", "c", "\u00e9"] * 10), "b": np.arange(40.0)})
    cat = gbt.train({"max_depth": 2}, gbt.DMatrix(X, np.arange(40.0) % 2, enable_categorical=True), 1)
    for fmt in ("ubj", "json"):
        with pytest.raises(ValueError, match="not ASCII.*raw_format='gbt'"):
            cat.save_raw(fmt)
    assert json.loads(cat.save_raw("gbt"))["format"]


# -- datasets of no rows, as XGBoost 3.2 takes them
def test_empty_matrices_as_xgboost(caplog):
    import scipy.sparse as sp

    X, y = _binary(60, 3)
    b = gbt.train({"max_depth": 2}, gbt.DMatrix(X, y), 2)
    for e in (gbt.DMatrix(np.zeros((0, 3)), label=np.zeros(0)), gbt.DMatrix(sp.csr_matrix((0, 3)))):
        assert (e.num_row(), e.num_col()) == (0, 3)
        assert b.predict(e).shape == (0,) and b.predict(e, pred_contribs=True).shape == (0, 4)
    assert b.inplace_predict(np.zeros((0, 3))).shape == (0,)
    assert gbt.XGBClassifier(n_estimators=2).fit(X, y).predict_proba(np.zeros((0, 3))).shape == (0, 2)
    # training on no rows: XGBoost 3.2 grows 2 trees of one leaf 0 from an intercept of 0
    e = gbt.train({}, gbt.DMatrix(np.zeros((0, 3)), label=np.zeros(0)), 2)
    assert "the training data has no rows" in caplog.text  # XGBoost: "Empty dataset"
    assert e.num_boosted_rounds() == 2
    np.testing.assert_array_equal(e.predict(gbt.DMatrix(X)), np.zeros(60, np.float32))


# -- XGBoost 3.2's test_basic_models: booster[...] and names checked against an unnamed DMatrix
def test_ellipsis_slice_and_unnamed_dmatrix_as_xgboost():
    X, y = _binary(40, 3)
    b = gbt.train({"max_depth": 2}, gbt.DMatrix(X, y, feature_names=["a", "b", "c"]), 3)
    assert b[...].num_boosted_rounds() == 3
    with pytest.raises(ValueError, match="no feature names"):
        b.predict(gbt.DMatrix(X))  # XGBoost: ValueError, the data lacks the model's names
    assert b.predict(gbt.DMatrix(X), validate_features=False).shape == (40,)
    assert b.inplace_predict(X).shape == (40,)  # arrays carry no names: no check, as XGBoost


def test_tree_estimators_intercept_is_base_score_as_xgboost():
    # XGBoost 3.2's intercept_ of a tree model: base_score per output (test_model_io reads it)
    xgb = pytest.importorskip("xgboost")
    X, y = _binary(300, 4)
    y3 = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
    for ours, theirs, label in ((gbt.XGBClassifier, xgb.XGBClassifier, y3), (gbt.XGBRegressor, xgb.XGBRegressor, y)):
        got = ours(n_estimators=1).fit(X, label).intercept_
        want = theirs(n_estimators=1).fit(X, label).intercept_
        assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)  # XGBoost fits base_score in float
    # a linear model's: its bias, float32 too
    got = gbt.XGBRegressor(booster="gblinear", n_estimators=2).fit(X, y).intercept_
    want = xgb.XGBRegressor(booster="gblinear", n_estimators=2).fit(X, y).intercept_
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape


# -- XGBoost 3.2's test_intercept, test_with_pandas, test_quantile_dmatrix: inputs and misuse as XGBoost
def test_inputs_and_misuse_as_xgboost_tests_see_them():
    xgb = pytest.importorskip("xgboost")
    pd = pytest.importorskip("pandas")
    X, y = _binary(40, 3)
    # a 0-d array parameter (np.median) is one number; a given base_score is reported as the float32 it is
    cfg = {}
    for lib in (gbt, xgb):
        b = lib.train({"base_score": np.array(0.1), "max_depth": 1}, lib.DMatrix(X, y), 1)
        cfg[lib] = json.loads(json.loads(b.save_config())["learner"]["learner_model_param"]["base_score"])
    assert cfg[gbt] == cfg[xgb] == [0.1]  # XGBoost prints the float32 shortest: "1E-1"
    # pandas: MultiIndex columns named by their levels joined, sparse columns warned as copied dense
    df = pd.DataFrame(X, columns=pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1)]))
    assert gbt.DMatrix(df).feature_names == xgb.DMatrix(df).feature_names == ["a 1", "a 2", "b 1"]
    sparse = pd.DataFrame({"a": pd.arrays.SparseArray(X[:, 0])})
    with pytest.warns(UserWarning, match="Sparse arrays from pandas"):
        gbt.DMatrix(sparse)
    with pytest.raises(ValueError, match="Label contains NaN"):
        gbt.DMatrix(X, np.full(40, np.nan))
    with pytest.raises(NotImplementedError, match="data_split_mode=COL"):
        gbt.DMatrix(X, data_split_mode=gbt.core.DataSplitMode.COL)
    assert gbt.DMatrix(X, data_split_mode=gbt.core.DataSplitMode.ROW).num_row() == 40
    with pytest.raises(ValueError, match="Invalid size of sample weight"):
        gbt.XGBRegressor(n_estimators=1).fit(X, y, sample_weight=np.ones(30))
    # continuing on a QuantileDMatrix of another max_bin: XGBoost's ValueError; on one of the same max_bin
    # both continue, gbt from the bins (every threshold one of their cuts), as over the values
    b = gbt.train({}, gbt.QuantileDMatrix(X, y, max_bin=9), 1)
    on_bins = gbt.train({"max_bin": 9}, gbt.QuantileDMatrix(X, y, max_bin=9), 1, xgb_model=b)
    on_values = gbt.train({"max_bin": 9}, gbt.Dataset(X, y), 1, xgb_model=b)
    assert on_bins.save_raw("gbt") == on_values.save_raw("gbt")
    assert gbt.train({}, gbt.Dataset(X, y), 1, xgb_model=b).num_boosted_rounds() == 2
    with pytest.raises(ValueError, match="consistent"):
        gbt.train({}, gbt.QuantileDMatrix(X, y, max_bin=11), 1, xgb_model=b)


def test_process_type_update_matches_xgboost(tmp_path):
    """updater=refresh, prune and both with process_type=update on XGBoost's own trees give
    XGBoost's trees: the same structure, values within float rounding (XGBoost sums float
    gradients of float margins, gbt exact fixed-point sums of double ones)."""
    xgb = pytest.importorskip("xgboost")
    X, y = _binary(400, 5, 1)
    X2, y2 = _binary(400, 5, 2)
    base = {"objective": "binary:logistic", "max_depth": 4, "tree_method": "hist", "nthread": 1}
    orig = xgb.train(base, xgb.DMatrix(X, y), 3)
    orig.save_model(str(tmp_path / "orig.json"))

    def trees(b):
        return json.loads(bytes(b.save_raw("json")))["learner"]["gradient_booster"]["model"]["trees"]

    for updater, extra in (("refresh", {}), ("prune", {"gamma": 1.0, "max_depth": 3}),
                           ("refresh,prune", {"gamma": 2.0})):
        params = dict(base, process_type="update", updater=updater, **extra)
        theirs = xgb.train(params, xgb.DMatrix(X2, y2), 3, xgb_model=orig)
        theirs.save_model(str(tmp_path / "theirs.json"))
        with pytest.warns(UserWarning, match="`updater`"):
            ours = gbt.train(params, gbt.DMatrix(X2, y2), 3, xgb_model=str(tmp_path / "orig.json"))
        assert ours.num_boosted_rounds() == 3
        a, b = trees(gbt.Booster(model_file=str(tmp_path / "theirs.json"))), trees(ours)
        assert len(a) == len(b) == 3
        for ta, tb in zip(a, b):
            assert ta["left_children"] == tb["left_children"] and ta["split_indices"] == tb["split_indices"], updater
            inner = np.array(ta["left_children"]) >= 0
            np.testing.assert_allclose(tb["split_conditions"], ta["split_conditions"], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(tb["sum_hessian"], ta["sum_hessian"], rtol=1e-5)
            np.testing.assert_allclose(np.array(tb["base_weights"])[inner], np.array(ta["base_weights"])[inner],
                                       rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.array(tb["loss_changes"])[inner], np.array(ta["loss_changes"])[inner],
                                       rtol=1e-4, atol=1e-4)
        if updater != "refresh":
            assert sum(len(t["left_children"]) for t in b) < sum(len(t["left_children"]) for t in trees(orig))
    # refresh_leaf=false: the statistics change, the leaf values stay
    kept = gbt.train({"process_type": "update", "updater": "refresh", "refresh_leaf": False, "nthread": 1},
                     gbt.DMatrix(X2, y2), 3,
                     xgb_model=str(tmp_path / "orig.json"))
    loaded = gbt.Booster(model_file=str(tmp_path / "orig.json"))
    np.testing.assert_array_equal(kept.predict(gbt.DMatrix(X)), loaded.predict(gbt.DMatrix(X)))
    assert trees(kept)[0]["sum_hessian"] != trees(loaded)[0]["sum_hessian"]
    # XGBoost's refusals: more rounds than the model has, the updaters without process_type=update
    with pytest.raises(gbt.XGBoostError, match="rounds cannot exceed"):
        gbt.train({"process_type": "update", "updater": "prune"}, gbt.DMatrix(X2, y2), 4,
                  xgb_model=str(tmp_path / "orig.json"))
    with pytest.raises(gbt.XGBoostError, match="process_type=update"):
        gbt.train({"updater": "refresh"}, gbt.DMatrix(X2, y2), 1)
    with pytest.raises(gbt.XGBoostError, match="updater=refresh, prune or refresh,prune"):
        gbt.train({"process_type": "update"}, gbt.DMatrix(X2, y2), 1, xgb_model=str(tmp_path / "orig.json"))
