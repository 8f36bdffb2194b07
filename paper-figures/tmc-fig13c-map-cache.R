# TMC Fig. 13c: modeled total time of the random 4 KiB reads and writes against the size
# of their region, with 16 and 128 KiB map caches, and writes with GC (W-GC).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dispersed <- read_table(args$tables[[1]])
models <- c("R-16", "R-128", "W-16", "W-128", "W-GC")
rows <- dispersed[dispersed$model %in% models, ]
rows$model <- factor(rows$model, levels = models)

plot <- ggplot(rows, aes(region_mib, modeled_ms / 1000, colour = model, shape = model)) +
  geom_line() +
  geom_point(size = 2) +
  scale_x_log10() +
  scale_y_log10() +
  scale_colour_manual(values = palette_for(length(models))) +
  labs(x = "I/O region (MiB, log scale)", y = "modeled time (s, log scale)") +
  theme_mobifrag()

save_figure(plot, args)
