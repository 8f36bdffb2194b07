"""Reserved-file selection of ARS (ARS §IV.A, Tables I–II).

descriptors  per-file features of a Mobibench app trace, a file being a descriptor the
             trace writes through (ARS §IV.A): file size, write time interval, write
             request count
labels       the reserve / do-not-reserve label: the fragmentation the files written
             through the descriptor show (fragcheck DoF) after a replay of the trace
models       KNN, logistic regression, CART, AdaBoost, random forest over seeded
             stratified train/test splits: precision, recall, accuracy, balanced
             accuracy and training time
select       the decision tree trained on the whole data set picks the files to reserve

Command line: `python -m mobifrag.workloads.ars_selection --help`.
"""
