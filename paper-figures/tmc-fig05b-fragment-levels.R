# TMC Fig. 5b: number of fragments of each size level (TMC Table 2) on every day of the
# AutoAge replay, all files together.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
levels <- with_repetitions(read_table(args$tables[[1]]))
levels <- levels[levels$day >= 1, ]
# Each run's count per day and level, then their median and range over the runs.
runs <- aggregate(fragments ~ day + level + rep, data = levels, FUN = sum)
daily <- over_repetitions(runs, "fragments", c("day", "level"))
daily$level <- factor(daily$level, levels = paste0("L", 1:7))

plot <- ggplot(daily, aes(day, median, colour = level, shape = level)) +
  geom_linerange(aes(ymin = low, ymax = high), alpha = 0.5) +
  geom_line() +
  geom_point(size = 1.5) +
  scale_x_days() +
  scale_shape_manual(values = c(16, 17, 15, 3, 4, 8, 1)) +
  scale_colour_manual(values = palette_for(7)) +
  labs(x = "day", y = "fragments", colour = "size level", shape = "size level") +
  theme_mobifrag()

save_figure(plot, args)
