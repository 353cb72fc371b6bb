"""gbt.DataIter and QuantileDMatrix(iterator): the model bytes of the same
rows in one Dataset, also from ExtMemQuantileDMatrix's pages on disk; the
same iterator class against XGBoost's QuantileDMatrix(iterator) and
ExtMemQuantileDMatrix; a validation set binned with the training cuts
(QuantileDMatrix(it, ref=)); bad batches and exceptions in the callbacks; a
corrupt page refused."""
import gc

import numpy as np
import pytest

import gbt


def _data(n=300, ncol=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, ncol)).astype(np.float32)
    X[:, 2] = np.round(X[:, 2] * 6)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:40, 3] = np.nan  # all missing in the first batch of 40
    y = np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 2]) + 0.1 * rng.random(n).astype(np.float32)
    return X, y.astype(np.float32)


class Batches(gbt.DataIter):
    """Rows in batches of the given sizes (the last repeated), with the fields of those rows."""

    def __init__(self, X, fields, sizes, sparse=False, cache_prefix=None):
        self.X, self.fields, self.sizes, self.sparse = X, fields, sizes, sparse
        self.at = self.k = self.resets = 0
        super().__init__(cache_prefix=cache_prefix)

    def next(self, input_data):
        if self.at >= len(self.X):
            return False
        n = self.sizes[min(self.k, len(self.sizes) - 1)]
        part = self.X[self.at:self.at + n]
        if self.sparse:
            import scipy.sparse as sp
            part = sp.csr_matrix(np.nan_to_num(part, nan=0.0))
        input_data(data=part, **{k: v[self.at:self.at + n] for k, v in self.fields.items()})
        self.at += n
        self.k += 1
        return True

    def reset(self):
        self.at = self.k = 0
        self.resets += 1


@pytest.mark.parametrize("params,task", [
    ({"objective": "reg:squarederror"}, "reg"),
    ({"objective": "multi:softprob", "num_class": 3, "grow_policy": "lossguide", "max_leaves": 6}, "multi"),
    ({"objective": "rank:ndcg"}, "rank"),
])
def test_iterator_gives_the_in_memory_model(params, task, tmp_path):
    X, y = _data()
    fields = {"label": y}
    if task == "multi":
        fields["label"] = (np.nan_to_num(X[:, 0]) * 3).astype(np.int32).clip(0, 2).astype(np.float32)
    if task == "rank":
        fields = {"label": (np.nan_to_num(X[:, 2]) % 3).astype(np.float32), "qid": np.arange(len(y)) // 10}
    params = dict(params, max_depth=3, max_bin=32, device="cpu")
    want = gbt.train(params, gbt.Dataset(X, **fields), 3).save_raw("gbt")
    # (a query group lies in one batch: ranking batches of whole groups)
    for sizes in ([10] if task == "rank" else [1], [40, 70, 30], [len(y)]):
        it = Batches(X, fields, sizes)
        got = gbt.train(params, gbt.QuantileDMatrix(it, max_bin=32), 3).save_raw("gbt")
        assert got == want, sizes
        assert it.resets == 2
    # in pages on disk (three batches: three pages), removed with the dataset
    d = gbt.ExtMemQuantileDMatrix(Batches(X, fields, [100] if task == "rank" else [40, 70, 30],
                                          cache_prefix=str(tmp_path / "c")), max_bin=32)
    assert len(list(tmp_path.glob("c-gbt-*.pages"))) == 1
    booster = gbt.train(params, d, 3)
    assert booster.save_raw("gbt") == want
    # predicted from its pages (read back page by page): the values of the rows in memory
    np.testing.assert_array_equal(booster.predict(d), booster.predict(gbt.Dataset(X, **fields)))
    del d, booster
    gc.collect()
    assert list(tmp_path.iterdir()) == []
    if task == "reg":
        # sparse batches (absent entries missing) give the model of the same sparse matrix
        import scipy.sparse as sp
        Z = np.nan_to_num(X, nan=0.0)
        want = gbt.train(params, gbt.Dataset(sp.csr_matrix(Z), label=y), 3).save_raw("gbt")
        got = gbt.train(params, gbt.QuantileDMatrix(Batches(X, fields, [50], sparse=True), max_bin=32), 3)
        assert got.save_raw("gbt") == want


def test_dataset_from_an_iterator_keeps_the_values():
    """Dataset(iterator), XGBoost's DMatrix(iterator): the batches joined in
    memory, feature values kept: the model and predictions of the same rows
    given at once, dense and sparse; a field missing from a batch refused."""
    X, y = _data()
    w = np.linspace(0.5, 2, len(y)).astype(np.float32)
    params = {"objective": "reg:squarederror", "max_depth": 3, "max_bin": 32}
    want = gbt.train(params, gbt.Dataset(X, label=y, weight=w), 3)
    d = gbt.DMatrix(Batches(X, {"label": y, "weight": w}, [40, 70, 30]))
    got = gbt.train(params, d, 3)
    assert got.save_raw("gbt") == want.save_raw("gbt")
    np.testing.assert_array_equal(got.predict(d), want.predict(gbt.Dataset(X)))
    import scipy.sparse as sp
    sparse_want = gbt.train(params, gbt.Dataset(sp.csr_matrix(np.nan_to_num(X, nan=0.0)), label=y), 3)
    sparse_got = gbt.train(params, gbt.Dataset(Batches(X, {"label": y}, [100], sparse=True)), 3)
    assert sparse_got.save_raw("gbt") == sparse_want.save_raw("gbt")

    class NoLabelLater(Batches):
        def next(self, input_data):
            return super().next(input_data if self.k == 0 else lambda data, label: input_data(data=data))
    with pytest.raises(ValueError, match="batch 1 has no label, but batch 0 has"):
        gbt.Dataset(NoLabelLater(X, {"label": y}, [100]))


def test_same_iterator_as_xgboost(tmp_path):
    xgb = pytest.importorskip("xgboost")
    X, y = _data(200, 4)
    params = {"objective": "reg:squarederror", "max_depth": 3, "max_bin": 64, "tree_method": "hist", "nthread": 1}

    def iterator(base, cache_prefix=None):
        """An iterator of XGBoost's protocol over either library's base class."""
        class It(base):
            def __init__(self):
                self.at = 0
                base.__init__(self, cache_prefix=cache_prefix)

            def next(self, input_data):
                if self.at >= len(y):
                    return False
                input_data(data=X[self.at:self.at + 64], label=y[self.at:self.at + 64])
                self.at += 64
                return True

            def reset(self):
                self.at = 0
        return It()

    ours = gbt.train(dict(params, device="cpu"), gbt.QuantileDMatrix(iterator(gbt.DataIter), max_bin=64), 4)
    theirs = xgb.train(params, xgb.QuantileDMatrix(iterator(xgb.DataIter), max_bin=64), 4)
    np.testing.assert_allclose(ours.predict(gbt.DMatrix(X)), theirs.predict(xgb.DMatrix(X)), rtol=1e-5, atol=1e-6)
    # external memory: pages on disk in both, the same iterator class
    ours_ext = gbt.train(dict(params, device="cpu"),
                         gbt.ExtMemQuantileDMatrix(iterator(gbt.DataIter, str(tmp_path / "g")), max_bin=64), 4)
    assert ours_ext.save_raw("gbt") == ours.save_raw("gbt")
    theirs_ext = xgb.train(params, xgb.ExtMemQuantileDMatrix(iterator(xgb.DataIter, str(tmp_path / "x")),
                                                             max_bin=64), 4)
    np.testing.assert_allclose(ours_ext.predict(gbt.DMatrix(X)), theirs_ext.predict(xgb.DMatrix(X)),
                               rtol=1e-5, atol=1e-6)


def test_corrupt_page_refused(tmp_path):
    X, y = _data(100, 4)
    d = gbt.ExtMemQuantileDMatrix(Batches(X, {"label": y}, [30], cache_prefix=str(tmp_path) + "/"), max_bin=16)
    (page,) = tmp_path.glob("gbt-*.pages")
    raw = bytearray(page.read_bytes())
    raw[100] ^= 1
    page.write_bytes(bytes(raw))
    with pytest.raises(gbt.FormatError, match="page 0: checksum mismatch"):
        gbt.train({"max_depth": 2, "device": "cpu"}, d, 1)
    with pytest.raises(TypeError, match="DataIter"):
        gbt.ExtMemQuantileDMatrix(X)


def test_bad_batches():
    X, y = _data(100, 4)

    class Ragged(Batches):
        def next(self, input_data):
            if self.k == 2:
                input_data(data=X[:30, :3], label=y[:30])
                self.k += 1
                self.at += 30
                return True
            return super().next(input_data)

    with pytest.raises(gbt.InvalidArgumentError, match="batch 2 has 3 columns but batch 0 has 4"):
        gbt.QuantileDMatrix(Ragged(X, {"label": y}, [30]))

    class Broken(Batches):
        def next(self, input_data):
            if self.k == 1:
                raise KeyError("no such shard")
            return super().next(input_data)

    with pytest.raises(KeyError, match="no such shard"):
        gbt.QuantileDMatrix(Broken(X, {"label": y}, [30]))
    class Positional(Batches):
        def next(self, input_data):
            input_data(self.X, self.fields["label"])
            return True

    with pytest.raises(ValueError, match="come with each batch"):  # XGBoost's type and words
        gbt.QuantileDMatrix(Batches(X, {}, [30]), label=y)
    with pytest.raises(ValueError, match="specified as batch argument"):
        gbt.QuantileDMatrix(Batches(X, {"label": y}, [30]), feature_types=["q"] * X.shape[1])
    with pytest.raises(TypeError, match="Keyword argument is required"):  # input_data(X, y): XGBoost's too
        gbt.QuantileDMatrix(Positional(X, {"label": y}, [30]))


def test_what_needs_the_values_is_refused():
    X, y = _data(100, 4)
    d = gbt.QuantileDMatrix(Batches(X, {"label": y}, [30]), max_bin=16)
    b = gbt.train({"max_depth": 2, "device": "cpu"}, d, 2)
    # other rows with cuts of their own: the trees' thresholds are not bin boundaries there
    other = gbt.QuantileDMatrix(Batches(X[::-1][:70] * 1.5, {"label": y[:70]}, [30]), max_bin=16)
    with pytest.raises(gbt.InvalidArgumentError, match="made from an iterator.*not one of its cuts"):
        b.predict(other)
    with pytest.raises(gbt.InvalidArgumentError, match="max_bin=16"):
        gbt.train({"max_bin": 64, "device": "cpu"}, d, 1)


def test_ref_validation_set_as_in_memory_and_as_xgboost():
    # QuantileDMatrix(it, ref=dtrain): the validation rows binned with the training cuts evaluate and
    # predict as the same rows in memory, bit for bit, as XGBoost's QuantileDMatrix(it, ref=) does
    xgb = pytest.importorskip("xgboost")
    X, y = _data(300, 4, seed=3)
    Xt, yt, Xv, yv = X[:200], y[:200], X[200:], y[200:]
    params = {"max_depth": 3, "device": "cpu", "eval_metric": ["rmse", "mae"]}
    dtrain = gbt.QuantileDMatrix(Batches(Xt, {"label": yt}, [64]), max_bin=32)
    dvalid = gbt.QuantileDMatrix(Batches(Xv, {"label": yv}, [40]), ref=dtrain)
    want, got = {}, {}
    mem = gbt.train(dict(params, max_bin=32), gbt.Dataset(Xt, label=yt), 3,
                    evals=[(gbt.Dataset(Xv, label=yv), "v")], evals_result=want, verbose_eval=False)
    b = gbt.train(params, dtrain, 3, evals=[(dvalid, "v")], evals_result=got, verbose_eval=False)
    assert dvalid.max_bin == 32 and len(got["v"]["rmse"]) == 3 and got == want
    assert np.array_equal(b.predict(dvalid), mem.predict(gbt.Dataset(Xv)))
    assert np.array_equal(b.predict(dvalid, pred_leaf=True), mem.predict(gbt.Dataset(Xv), pred_leaf=True))
    ref_mem = gbt.QuantileDMatrix(Batches(Xv, {"label": yv}, [40]), ref=gbt.Dataset(Xt, label=yt), max_bin=32)
    assert np.array_equal(mem.predict(ref_mem, output_margin=True), mem.predict(gbt.Dataset(Xv), output_margin=True))

    class It(xgb.DataIter):
        def __init__(self, X, y):
            self.X, self.y, self.at = X, y, 0
            super().__init__()

        def next(self, input_data):
            if self.at >= len(self.y):
                return False
            input_data(data=self.X[self.at:self.at + 40], label=self.y[self.at:self.at + 40])
            self.at += 40
            return True

        def reset(self):
            self.at = 0

    xt = xgb.QuantileDMatrix(It(Xt, yt), max_bin=32)
    xv = xgb.QuantileDMatrix(It(Xv, yv), ref=xt, max_bin=32)  # XGBoost asks for the same max_bin again
    theirs = xgb.train({"max_depth": 3, "nthread": 1, "tree_method": "hist", "max_bin": 32}, xt, 3)
    # the semantics gbt follows: XGBoost's binned validation rows predict as its rows in memory
    assert np.array_equal(theirs.predict(xv), theirs.predict(xgb.DMatrix(Xv)))


def test_training_set_evaluated_from_its_training_scores():
    # evals holding the iterator's own dataset: the training state's scores, the in-memory metrics
    X, y = _data(200, 4)
    params = {"max_depth": 2, "max_bin": 16, "device": "cpu", "eval_metric": ["rmse", "mae"]}
    want, got = {}, {}
    d = gbt.Dataset(X, label=y)
    gbt.train(params, d, 3, evals=[(d, "train")], evals_result=want, verbose_eval=False)
    q = gbt.QuantileDMatrix(Batches(X, {"label": y}, [70]), max_bin=16)
    gbt.train(params, q, 3, evals=[(q, "train")], evals_result=got, verbose_eval=False)
    assert len(got["train"]["rmse"]) == 3 and got == want


def test_weights_base_margin_categories_and_names():
    X, y = _data(300, 4, seed=1)
    X[:, 1] = np.where(np.isnan(X[:, 1]), np.nan, np.floor(np.nan_to_num(X[:, 1]) * 7))
    rng = np.random.default_rng(2)
    fields = {"label": y, "weight": rng.random(300).astype(np.float32) + 0.5,
              "base_margin": rng.random(300).astype(np.float32)}
    meta = {"feature_types": ["q", "c", "q", "q"], "feature_names": list("abcd")}
    params = {"max_depth": 4, "max_bin": 64, "device": "cpu"}
    want = gbt.train(params, gbt.Dataset(X, **fields, **meta), 3).save_raw("gbt")

    class WithMeta(Batches):
        def next(self, input_data):
            return super().next(lambda **kw: input_data(**kw, **meta))

    assert gbt.train(params, gbt.QuantileDMatrix(WithMeta(X, fields, [77]), max_bin=64), 3).save_raw("gbt") == want


def test_quantile_dmatrix_of_an_array_keeps_only_bins(monkeypatch):
    """QuantileDMatrix(array) of float64 repeating values bins blocks of the
    rows as an iterator's batches (here 3 blocks of 128 rows, weights and a
    base margin with them) and keeps no floats: the model of Dataset(array),
    byte for byte, and slicing refused.  ref keeps the values."""
    from gbt.data_iter import _ArrayRows

    monkeypatch.setattr(_ArrayRows, "BLOCK_BYTES", 128 * 4 * 5)
    X, y = _data(n=300)
    X = np.round(X, 1).astype(np.float64)  # 11 distinct values a feature: 55 of 1,350 present in all
    w = np.linspace(0.5, 2.0, 300).astype(np.float32)
    bm = np.full(300, 0.25, np.float32)
    params = {"objective": "reg:squarederror", "max_depth": 3, "max_bin": 32, "nthread": 1}
    q = gbt.QuantileDMatrix(X, y, weight=w, base_margin=bm, max_bin=32)
    want = gbt.train(params, gbt.Dataset(X, label=y, weight=w, base_margin=bm), 2).save_raw("gbt")
    assert bytes(gbt.train(params, q, 2).save_raw("gbt")) == bytes(want)
    with pytest.raises(gbt.InvalidArgumentError, match="made from an iterator"):
        q.slice([0, 1])
    assert gbt.QuantileDMatrix(X[:50], y[:50], ref=q).slice([0, 1]).num_row() == 2


def test_quantile_dmatrix_of_an_array_bins_it_in_place():
    """QuantileDMatrix(float32 array) bins the caller's rows where they are
    (gbt_dataset_from_dense_binned): mostly distinct values with weights,
    NaNs and a missing= sentinel, in a view whose rows are 7 floats apart,
    train the model of Dataset(array), byte for byte, and keep no floats; a
    float64 array of such values (one float32 copy) too."""
    X, y = _data(n=300)  # 4 of 5 columns mostly distinct, 10% NaN
    w = np.linspace(0.5, 2.0, 300).astype(np.float32)
    wide = np.full((300, 7), -5.0, np.float32)
    wide[:, :5] = np.where(np.isnan(X), -5.0, X)
    params = {"objective": "reg:squarederror", "max_depth": 3, "max_bin": 32, "nthread": 1}
    want = bytes(gbt.train(params, gbt.Dataset(X, label=y, weight=w), 2).save_raw("gbt"))
    q = gbt.QuantileDMatrix(wide[:, :5], y, weight=w, missing=-5.0, max_bin=32)
    assert bytes(gbt.train(params, q, 2).save_raw("gbt")) == want
    with pytest.raises(gbt.InvalidArgumentError, match="keeps only their bins"):
        q.slice([0, 1])
    q = gbt.QuantileDMatrix(X.astype(np.float64), y, weight=w, max_bin=32)
    assert bytes(gbt.train(params, q, 2).save_raw("gbt")) == want
