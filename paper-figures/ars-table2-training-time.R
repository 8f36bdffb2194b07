# ARS Table II: training time of each classifier relative to the fastest one (bar), with
# the mean fit time in milliseconds written on the bar, each the median over the
# repetitions of the selection's replay.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
table2 <- read_table(args$tables[[1]])
table2 <- repetition_medians(
  with_repetitions(table2), c("relative_to_fastest", "fit_seconds"), c("app", "model")
)
table2$model <- ars_model_names(table2$model)
table2$app <- app_label(table2$app)

plot <- ggplot(table2, aes(model, relative_to_fastest, fill = app)) +
  geom_col(position = position_dodge(width = 0.8), width = 0.75) +
  geom_text(
    aes(label = sprintf("%.2g ms", fit_seconds * 1000)),
    position = position_dodge(width = 0.8), vjust = -0.3, size = 2.6
  ) +
  scale_y_continuous(expand = expansion(mult = c(0, 0.1))) +
  scale_fill_manual(values = palette_for(length(unique(table2$app)))) +
  labs(x = NULL, y = "training time / fastest model's", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args)
