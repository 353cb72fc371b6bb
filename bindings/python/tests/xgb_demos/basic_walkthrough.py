"""Load LIBSVM files, train, predict, save and load the model and the data, dump it."""
import os
import pickle

import numpy as np
import scipy.sparse

import xgboost as xgb

dtrain = xgb.DMatrix("demo.train.libsvm?format=libsvm")
dtest = xgb.DMatrix("demo.test.libsvm?format=libsvm")
param = {"max_depth": 2, "eta": 1, "objective": "binary:logistic"}
watchlist = [(dtest, "eval"), (dtrain, "train")]
num_round = 2
bst = xgb.train(param, dtrain, num_round, watchlist)

preds = bst.predict(dtest)
labels = dtest.get_label()
error = sum(1 for i in range(len(preds)) if int(preds[i] > 0.5) != labels[i]) / float(len(preds))
print("error=%f" % error)

bst.save_model("model-0.json")
bst.dump_model("dump.raw.txt")
with open("featmap.txt", "w") as f:
    for i in range(dtrain.num_col()):
        f.write(f"{i}\tfeat{i}\tq\n")
bst.dump_model("dump.nice.txt", "featmap.txt")
with open("dump.nice.txt") as f:
    nice = f.read()
assert "feat" in nice and "booster[0]" in nice

# the test data in the library's binary buffer, loaded again
dtest.save_binary("dtest.dmatrix")
bst2 = xgb.Booster(model_file="model-0.json")
dtest2 = xgb.DMatrix("dtest.dmatrix")
preds2 = bst2.predict(dtest2)
assert np.sum(np.abs(preds2 - preds)) == 0

pks = pickle.dumps(bst2)
bst3 = pickle.loads(pks)
preds3 = bst3.predict(dtest2)
assert np.sum(np.abs(preds3 - preds)) == 0

# the same training data from a scipy CSR matrix, a CSC matrix and a numpy array
rows, cols, vals, labels_ = [], [], [], []
with open("demo.train.libsvm") as f:
    for i, line in enumerate(f):
        parts = line.split()
        labels_.append(float(parts[0]))
        for kv in parts[1:]:
            k, v = kv.split(":")
            rows.append(i)
            cols.append(int(k))
            vals.append(float(v))
csr = scipy.sparse.csr_matrix((vals, (rows, cols)))
dcsr = xgb.DMatrix(csr, label=labels_)
bst_csr = xgb.train(param, dcsr, num_round, [(dcsr, "train")])
csc = scipy.sparse.csc_matrix((vals, (rows, cols)))
dcsc = xgb.DMatrix(csc, label=labels_)
bst_csc = xgb.train(param, dcsc, num_round, [(dcsc, "train")])
npymat = csr.todense()
dnp = xgb.DMatrix(npymat, label=labels_)
bst_np = xgb.train(param, dnp, num_round, [(dnp, "train")])
p_csr, p_csc, p_np = (b.predict(dtest) for b in (bst_csr, bst_csc, bst_np))
assert np.allclose(p_csr, p_csc)  # the dense copy holds zeros where CSR has nothing: another model
assert p_np.shape == p_csr.shape
for fname in ("model-0.json", "dump.raw.txt", "dump.nice.txt", "dtest.dmatrix", "featmap.txt"):
    if os.path.exists(fname):
        os.remove(fname)

RESULT = {"error": error, "preds": preds, "preds_csr": p_csr}
