# TMC Fig. 13c: modeled total time of the random 4 KiB reads and writes against the size
# of their region, with 16 and 128 KiB map caches, and writes with GC (W-GC).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dispersed <- read_table(args$tables[[1]])
models <- c("R-16", "R-128", "W-16", "W-128", "W-GC")
rows <- dispersed[dispersed$model %in% models, ]
times <- over_repetitions(rows, "modeled_ms", c("model", "region_mib"))
times$model <- factor(times$model, levels = models)

plot <- ggplot(times, aes(region_mib, median / 1000, colour = model, shape = model)) +
  geom_line() +
  geom_point(size = 2) +
  geom_linerange(aes(ymin = low / 1000, ymax = high / 1000)) +
  scale_x_log10() +
  scale_y_log10() +
  scale_colour_manual(values = palette_for(length(models))) +
  labs(
    x = "I/O region (MiB, log scale)", y = "modeled time (s, log scale)",
    caption = "points: median of the repetitions; bars: their range"
  ) +
  theme_mobifrag()

save_figure(plot, args)
