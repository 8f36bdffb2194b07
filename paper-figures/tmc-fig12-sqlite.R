# TMC Fig. 12: total time of the tile-cache query log on each aged state, normalized to
# the No state, modeled and wall time; the absolute time (s) above each bar.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
latency <- read_table(args$tables[[1]])
rows <- latency[latency$phase == "sqlite", ]
if (nrow(rows) == 0) stop("tmc-fig12-sqlite: no sqlite rows in ", args$tables[[1]])
rows$state <- tools::toTitleCase(rows$state)
states <- unique(rows$state)
# the median of the repetitions where a phone repeated the runs
rows <- repetition_medians(rows, c("modeled_ms", "wall_ms"), "state")
rows <- rows[match(states, rows$state), ]
times <- rbind(
  data.frame(state = rows$state, ms = rows$modeled_ms, time = "modeled"),
  data.frame(state = rows$state, ms = rows$wall_ms, time = wall_series())
)
times$normalized <- times$ms / ave(times$ms, times$time, FUN = function(ms) ms[[1]])
times$state <- factor(times$state, levels = states)
times$time <- factor(times$time, levels = c("modeled", wall_series()))

plot <- ggplot(times, aes(state, normalized, fill = time)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  geom_text(aes(label = sprintf("%.3g", ms / 1000)),
    position = position_dodge(width = 0.85), vjust = -0.3, size = 2.5
  ) +
  scale_fill_manual(values = palette_for(2)) +
  labs(x = "aging", y = "time normalized to No", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args, width = 4.5)
