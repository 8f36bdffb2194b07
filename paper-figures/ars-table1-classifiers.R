# ARS Table I: precision, recall, accuracy and balanced accuracy of five classifiers that
# decide which files get reserved space, mean (bar) and standard deviation (whisker) over
# the random splits, each the median over the repetitions of the selection's replay.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
table1 <- read_table(args$tables[[1]])
table1 <- repetition_medians(
  with_repetitions(table1), c("mean", "sd"), c("app", "model", "metric")
)
table1$model <- ars_model_names(table1$model)
table1$app <- app_label(table1$app)
metrics <- c("precision", "recall", "accuracy", "balanced_accuracy")
table1$metric <- factor(table1$metric, levels = metrics, labels = sub("_", " ", metrics))

plot <- ggplot(table1, aes(model, mean, fill = metric)) +
  geom_col(position = position_dodge(width = 0.8), width = 0.75) +
  geom_errorbar(
    aes(ymin = pmax(mean - sd, 0), ymax = pmin(mean + sd, 1)),
    position = position_dodge(width = 0.8), width = 0.25
  ) +
  facet_wrap(~app, ncol = 1) +
  scale_fill_manual(values = palette_for(length(metrics))) +
  coord_cartesian(ylim = c(0, 1)) +
  labs(x = NULL, y = "mean over splits", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args, width = 7, height = 5)
