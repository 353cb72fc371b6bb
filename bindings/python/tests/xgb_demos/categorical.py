"""Categorical features from a pandas DataFrame (enable_categorical)."""
import numpy as np
import pandas as pd

import xgboost as xgb

rng = np.random.RandomState(1994)
n = 1000
df = pd.DataFrame({"num": rng.randn(n),
                   "cat": pd.Categorical(rng.choice(["a", "b", "c", "d"], size=n))})
effect = {"a": 0.0, "b": 3.0, "c": -2.0, "d": 1.0}
y = df["num"].to_numpy() + df["cat"].map(effect).astype(float).to_numpy()
reg = xgb.XGBRegressor(tree_method="hist", enable_categorical=True, max_cat_to_onehot=1, n_estimators=20)
reg.fit(df, y, eval_set=[(df, y)])
err = float(np.sqrt(np.mean((reg.predict(df) - y) ** 2)))
assert err < 0.5, err
dtrain = xgb.DMatrix(df, y, enable_categorical=True)
booster = xgb.train({"tree_method": "hist", "max_cat_to_onehot": 1}, dtrain, 10)
assert booster.predict(dtrain).shape == (n,)
RESULT = {"rmse": err}
