# ARS Fig. 4 (§V.A): fio throughput of sequential and random reads and writes of the 11
# reserved files at Low and High, relative to F2FS at Low; extents of the files at High.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(2)
runs <- read_table(args$tables[[1]])
extents <- read_table(args$tables[[2]])
if (nrow(runs) == 0 || nrow(extents) == 0) stop("no runs in ", args$tables)
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
  facet_wrap(~state) +
  labs(caption = note)

save_figure(plot, args)
