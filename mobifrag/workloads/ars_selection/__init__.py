"""Reserved-file selection of ARS (ARS §IV.A, Tables I–II).

features  per-file features from `.iotrace` traces: file size, write time interval,
          write request count (the three features of ARS §IV.A)
labels    the reserve / do-not-reserve label from access behaviour (written-many) and
          measured fragmentation (fragcheck DoF of a replay of the same traces)
models    KNN, logistic regression, CART, AdaBoost, random forest over seeded random
          train/test splits: precision, recall, accuracy and training time
select    the decision tree trained on the whole data set picks the files to reserve

Command line: `python -m mobifrag.workloads.ars_selection --help`.
"""
