# TMC Fig. 11: app installing time of each app on the No, Moderate and Severe aged states, modeled
# and emulator wall time side by side; block requests above the modeled bars.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"))

args <- figure_args(1)
latency <- read_table(args$tables[[1]])
rows <- latency[latency$phase == "install", ]
if (nrow(rows) == 0) stop("tmc-fig11-install: no install rows in ", args$tables[[1]])
rows$state <- tools::toTitleCase(rows$state)
states <- unique(rows$state)
times <- rbind(
  data.frame(rows[c("app", "state", "requests")], ms = rows$modeled_ms, time = "modeled"),
  data.frame(rows[c("app", "state", "requests")], ms = rows$emulator_wall_ms, time = "emulator wall")
)
times$state <- factor(times$state, levels = states)
times$app <- factor(times$app, levels = unique(rows$app))
times$time <- factor(times$time, levels = c("modeled", "emulator wall"))
times$label <- ifelse(times$time == "modeled", times$requests, "")

plot <- ggplot(times, aes(app, ms, fill = state)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  geom_text(aes(label = label),
    position = position_dodge(width = 0.85), vjust = -0.3, size = 2.2
  ) +
  facet_wrap(~time, scales = "free_y") +
  scale_fill_manual(values = palette_for(length(states))) +
  labs(x = NULL, y = "installing time (ms)", fill = "aging") +
  theme_mobifrag()

save_figure(plot, args)
