"""The metric history: params as a list of pairs asking for two metrics."""
import xgboost as xgb

dtrain = xgb.DMatrix("demo.train.libsvm?format=libsvm")
dtest = xgb.DMatrix("demo.test.libsvm?format=libsvm")

param = [("max_depth", 2), ("objective", "binary:logistic"), ("eval_metric", "logloss"),
         ("eval_metric", "error")]
num_round = 2
watchlist = [(dtest, "eval"), (dtrain, "train")]

evals_result = {}
bst = xgb.train(param, dtrain, num_round, watchlist, evals_result=evals_result)

print("Access logloss metric directly from evals_result:")
print(evals_result["eval"]["logloss"])
print("Access metrics through a loop:")
for e_name, e_mtrs in evals_result.items():
    print("- {}".format(e_name))
    for e_mtr_name, e_mtr_vals in e_mtrs.items():
        print("   - {}".format(e_mtr_name))
        print("      - {}".format(e_mtr_vals))
print("Access complete dictionary:")
print(evals_result)
assert set(evals_result["eval"]) == {"logloss", "error"}
assert set(evals_result["train"]) == {"logloss", "error"}
RESULT = {"eval_logloss": evals_result["eval"]["logloss"], "eval_error": evals_result["eval"]["error"],
          "train_logloss": evals_result["train"]["logloss"]}
