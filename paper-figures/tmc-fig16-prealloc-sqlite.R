# TMC Fig. 16: per app scenario, the share of SQLite files left unfragmented (DoF 1) and
# the space reserved by preallocation but unused, for SQLite preallocation units of
# 16 to 512 KiB (0 = none, for reference), on pristine file systems (TMC §6.1.1).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
summary <- read_table(args$tables[[1]])
units <- sort(unique(summary$unit_kib))
summary$unit <- factor(summary$unit_kib, levels = units)
summary$app <- app_label(summary$app)
long <- rbind(
  data.frame(
    app = summary$app, unit = summary$unit,
    measure = "unfragmented SQLite files (%)", value = 100 * summary$unfragmented_share
  ),
  data.frame(
    app = summary$app, unit = summary$unit,
    measure = "unused preallocated space (KiB)", value = summary$wasted_bytes / 1024
  )
)
long$measure <- factor(
  long$measure,
  levels = c("unfragmented SQLite files (%)", "unused preallocated space (KiB)")
)

plot <- ggplot(long, aes(unit, value, colour = app, group = app)) +
  geom_line() +
  geom_point(size = 1.8) +
  facet_wrap(~measure, scales = "free_y") +
  scale_colour_manual(values = palette_for(length(unique(long$app)))) +
  labs(x = "SQLite preallocation unit (KiB; 0 = none)", y = NULL, colour = "scenario") +
  theme_mobifrag()

save_figure(plot, args, width = 8)
