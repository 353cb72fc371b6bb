"""The GIL is released during C calls: Python threads predict in parallel."""
import threading

import numpy as np

import gbt


def test_prediction_releases_the_gil_and_threads_agree():
    rng = np.random.RandomState(0)
    X = rng.rand(20000, 20).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 1).astype(np.float32)
    b = gbt.train({"objective": "binary:logistic", "max_depth": 8, "nthread": 1}, gbt.Dataset(X, label=y), 100)
    expected = b.predict(X)
    # While one thread is inside gbt_booster_predict_dense, a pure-Python
    # thread keeps running: it could not if the GIL were held.
    ticks = [0]
    done = threading.Event()

    def spin():
        while not done.is_set():
            ticks[0] += 1
    t = threading.Thread(target=spin)
    t.start()
    for _ in range(3):
        np.testing.assert_array_equal(b.predict(X), expected)
    done.set()
    t.join()
    assert ticks[0] > 1000

    results = {}

    def work(i):
        results[i] = b.predict(X)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r in results.values():
        np.testing.assert_array_equal(r, expected)
