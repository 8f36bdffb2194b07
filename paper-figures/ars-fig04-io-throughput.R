# ARS Fig. 4 (§V.A): throughput of sequential and random reads and writes of the 11
# reserved files at Low and High, relative to F2FS at Low; extents of the files at High.
# The modeled throughput (each fio run's block trace replayed through ftl-sim on the
# device profile: the bytes fio moved over the modeled time) is judged on an emulator;
# the wall-time bandwidth is drawn below it, labelled with where it was measured (a
# phone's is judged there). Each bar is the
# median of the repetitions.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(2)
runs <- read_table(args$tables[[1]])
extents <- read_table(args$tables[[2]])
if (nrow(runs) == 0 || nrow(extents) == 0) stop("no runs in ", args$tables)
# Repeated runs: the median of the repetitions.
runs <- repetition_medians(
  runs, c("modeled_relative", "wall_relative"), c("scheme", "state", "workload")
)
extents <- repetition_medians(extents, "extents_mean", c("scheme", "state"))
series <- c("modeled (device model)", paste(wall_series(), "time"))
runs <- rbind(
  data.frame(runs[c("scheme", "state", "workload")], time = series[[1]],
    relative = runs$modeled_relative),
  data.frame(runs[c("scheme", "state", "workload")], time = series[[2]],
    relative = runs$wall_relative)
)
runs$time <- factor(runs$time, levels = series)
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$state <- ars_state_factor(runs$state)
runs$workload <- factor(
  runs$workload,
  levels = c("seq-read", "seq-write", "rand-read", "rand-write")
)
high <- extents[extents$state == "high", ]
high <- high[order(ars_scheme_factor(high$scheme)), ]
note <- paste0("Extents of the reserved files at High (mean per file): ",
  paste0(as.character(ars_scheme_factor(high$scheme)), " ", signif(high$extents_mean, 3),
    collapse = ", "))

plot <- plot_ars_bars(runs, "workload", "relative", "throughput / F2FS at Low") +
  facet_grid(time ~ state, scales = "free_y") +
  labs(caption = note)

save_figure(plot, args, height = 6)
