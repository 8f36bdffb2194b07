# Shared look of every mobifrag figure: one theme, a colour-blind-safe palette
# (Okabe & Ito, "Color Universal Design", 2008), PDF + PNG output.
suppressPackageStartupMessages(library(ggplot2))

okabe_ito <- c(
  "#E69F00", "#56B4E9", "#009E73", "#F0E442",
  "#0072B2", "#D55E00", "#CC79A7", "#000000"
)

theme_mobifrag <- function(base_size = 10) {
  theme_bw(base_size = base_size) +
    theme(
      panel.grid.minor = element_blank(),
      legend.position = "bottom",
      strip.background = element_rect(fill = "grey92", colour = NA),
      plot.caption = element_text(hjust = 0, colour = "grey30")
    )
}

# Okabe-Ito for up to eight groups; more groups cycle the palette rather than fail.
palette_for <- function(n) rep_len(okabe_ito, n)

# Command line of a figure script: PDF path, PNG path, then its input tables.
figure_args <- function(n_tables) {
  args <- commandArgs(trailingOnly = TRUE)
  if (length(args) != 2 + n_tables) {
    stop(sprintf(
      "usage: Rscript <figure>.R OUT.pdf OUT.png followed by %d table(s); got %d argument(s)",
      n_tables, length(args)
    ))
  }
  list(pdf = args[[1]], png = args[[2]], tables = args[-(1:2)])
}

# A figure's input table. A missing or empty table, one with a header and no rows, or a
# row cut short (a full disk, an interrupted copy) stops the script naming the file and
# line, rather than drawing a figure of what is left.
read_table <- function(path) {
  if (!file.exists(path)) stop(sprintf("%s: no such table", path), call. = FALSE)
  if (file.size(path) == 0) stop(sprintf("%s: empty table, not even a header", path), call. = FALSE)
  fields <- utils::count.fields(path, sep = ",", quote = "\"", comment.char = "",
    blank.lines.skip = FALSE)
  cut <- which(!is.na(fields) & fields != fields[[1]])
  if (length(cut) > 0) {
    stop(sprintf("%s:%d: %d field(s), the header has %d", path, cut[[1]],
      fields[[cut[[1]]]], fields[[1]]), call. = FALSE)
  }
  table <- utils::read.csv(path, stringsAsFactors = FALSE, check.names = FALSE)
  if (nrow(table) == 0) stop(sprintf("%s: the table has a header but no rows", path), call. = FALSE)
  table
}

# The run a figure was drawn from: commit, device, scale, seed, run date and `line`, the
# caption line to draw. The figure rule (rules/infra/figures.smk) hands it over in
# MOBIFRAG_FIGURE_STAMP as `key: value` lines, read from the run's figure-stamp.json by
# `python -m mobifrag.report.provenance --figure-stamp`; NULL when a script runs without.
figure_stamp <- function(text = Sys.getenv("MOBIFRAG_FIGURE_STAMP")) {
  if (!nzchar(text)) return(NULL)
  fields <- read.dcf(textConnection(text))
  if (nrow(fields) != 1 || !all(c("commit", "line") %in% colnames(fields))) {
    stop("MOBIFRAG_FIGURE_STAMP: expected `key: value` lines with commit and line", call. = FALSE)
  }
  as.list(fields[1, ])
}

# The name of the wall-time series: "emulator wall" or "phone wall", where the runs ran.
# The figure rule (rules/infra/figures.smk) sets it; a script run by hand says "wall".
wall_series <- function() Sys.getenv("MOBIFRAG_WALL_SERIES", "wall")

# The stamp as the figure's last caption line, below any caption of its own.
stamp_plot <- function(plot, stamp) {
  if (is.null(stamp)) return(plot)
  caption <- plot$labels$caption
  lines <- if (is.null(caption)) stamp$line else paste(caption, stamp$line, sep = "\n")
  plot + labs(caption = lines)
}

# The PDF's Title: the figure's name and, with a stamp, the run it was drawn from.
pdf_title <- function(pdf, stamp) {
  figure <- sub("\\.pdf$", "", basename(pdf))
  if (is.null(stamp)) return(figure)
  sprintf(
    "%s; mobifrag commit %s; device %s; scale %s; seed %s; run %s",
    figure, stamp$commit, stamp$device, stamp$scale, stamp$seed, stamp$date
  )
}

save_figure <- function(plot, args, width = 7, height = 3.5) {
  stamp <- figure_stamp()
  plot <- stamp_plot(plot, stamp)
  ggsave(args$pdf, plot, width = width, height = height, title = pdf_title(args$pdf, stamp))
  ggsave(args$png, plot, width = width, height = height, dpi = 150)
}

# Whole days on a day axis.
scale_x_days <- function() {
  scale_x_continuous(breaks = function(limits) unique(round(pretty(limits))))
}

# Rows of a labelled table that belong to the app named in their `package` column.
app_files <- function(table) {
  table[mapply(grepl, table$package, table$path, fixed = TRUE), ]
}

sqlite_or_not <- function(class) {
  factor(ifelse(class == "sqlite", "SQLite", "non-SQLite"), levels = c("SQLite", "non-SQLite"))
}

# The rows of the last day of a daily table (the most aged snapshot).
last_day <- function(table) table[table$day == max(table$day), ]

# Median and range over repetitions (the `rep` column of a repeated experiment's table)
# of `column`, per combination of the `by` columns.
over_repetitions <- function(table, column, by) {
  groups <- table[by]
  summary <- aggregate(table[[column]], groups, function(x) c(median(x), min(x), max(x)))
  values <- summary$x
  data.frame(summary[by], median = values[, 1], low = values[, 2], high = values[, 3])
}

# The median of each of `columns` over repetitions (the `rep` column), per combination
# of the `by` columns; a table of one repetition keeps its values.
repetition_medians <- function(table, columns, by) {
  aggregate(table[columns], table[by], median)
}

# Times of one operation of a dispersed-I/O table, modeled (profile's cache) and wall,
# each normalized to its smallest region within its repetition, then the median
# and range over repetitions (TMC Figs. 13a/b).
normalized_dispersed <- function(table, operation) {
  rows <- table[table$op == operation & table$model == "profile", ]
  rows <- rows[order(rows$rep, rows$region_mib), ]
  normalize <- function(ms) ms / ave(ms, rows$rep, FUN = function(x) x[[1]])
  points <- rbind(
    data.frame(rows["rep"], region_mib = rows$region_mib, time = "modeled",
      normalized = normalize(rows$modeled_ms)),
    data.frame(rows["rep"], region_mib = rows$region_mib, time = wall_series(),
      normalized = normalize(rows$wall_ms))
  )
  over_repetitions(points, "normalized", c("region_mib", "time"))
}

plot_normalized_dispersed <- function(points, operation) {
  ggplot(points, aes(region_mib, median, colour = time, shape = time)) +
    geom_line() +
    geom_point(size = 2) +
    geom_linerange(aes(ymin = low, ymax = high)) +
    scale_x_log10() +
    scale_colour_manual(values = palette_for(2)) +
    labs(
      x = "I/O region (MiB, log scale)",
      y = sprintf("%s time / time in the smallest region", operation),
      colour = NULL, shape = NULL, caption = "points: median of the repetitions; bars: their range"
    ) +
    theme_mobifrag()
}

# One phase of the user-latency table (TMC Figs. 10–11): each app's time per aged state,
# modeled and wall time side by side, block requests above the modeled bars; the median
# of the repetitions where a phone repeated the runs.
plot_app_latency <- function(latency, phase, y_label) {
  rows <- latency[latency$phase == phase, ]
  if (nrow(rows) == 0) stop("no ", phase, " rows in the user-latency table")
  rows$state <- tools::toTitleCase(rows$state)
  states <- unique(rows$state)
  apps <- unique(rows$app)
  rows <- repetition_medians(rows, c("requests", "modeled_ms", "wall_ms"), c("app", "state"))
  times <- rbind(
    data.frame(rows[c("app", "state", "requests")], ms = rows$modeled_ms, time = "modeled"),
    data.frame(
      rows[c("app", "state", "requests")],
      ms = rows$wall_ms, time = wall_series()
    )
  )
  times$state <- factor(times$state, levels = states)
  times$app <- factor(times$app, levels = apps)
  times$time <- factor(times$time, levels = c("modeled", wall_series()))
  times$label <- ifelse(times$time == "modeled", times$requests, "")
  ggplot(times, aes(app, ms, fill = state)) +
    geom_col(position = position_dodge(width = 0.85), width = 0.8) +
    geom_text(aes(label = label),
      position = position_dodge(width = 0.85), vjust = -0.3, size = 2.2
    ) +
    facet_wrap(~time, scales = "free_y") +
    scale_fill_manual(values = palette_for(length(states))) +
    labs(x = NULL, y = y_label, fill = "aging") +
    theme_mobifrag()
}

# TMC Fig. 14a/b: mean DoF of the appenders' files per thread count and preallocation
# unit at one utilization level of the treatment table.
plot_prealloc_dof <- function(dof, level) {
  dof <- dof[dof$level == level & !is.na(dof$dof), ]
  if (nrow(dof) == 0) stop("no ", level, "-utilization runs in the preallocation table")
  means <- aggregate(dof ~ threads + unit_kib, data = dof, FUN = mean)
  means$threads <- factor(means$threads, levels = sort(unique(means$threads)))
  units <- sort(unique(means$unit_kib))
  unit_label <- function(kib) ifelse(kib == 0, "none", paste(kib, "KiB"))
  means$unit <- factor(unit_label(means$unit_kib), levels = unit_label(units))
  ggplot(means, aes(threads, dof, fill = unit)) +
    geom_col(position = position_dodge(width = 0.85), width = 0.8) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
    scale_fill_manual(values = palette_for(length(units))) +
    labs(x = "concurrent appending threads", y = "mean DoF", fill = "preallocation unit") +
    theme_mobifrag()
}

# The F2FS schemes of the ARS figures (rules/experiments/ars.smk), as a factor in the paper's order.
ars_scheme_factor <- function(scheme) {
  factor(scheme,
    levels = c("f2fs", "ipu", "ars", "ars-ipu"),
    labels = c("F2FS", "IPU", "ARS", "ARS+IPU")
  )
}

# Display names of the ARS classifiers (mobifrag/workloads/ars_selection/models.py), in table order.
ars_model_names <- function(model) {
  names <- c(
    knn = "KNN", logistic_regression = "Logistic regression",
    decision_tree = "Decision tree (CART)", adaboost = "AdaBoost",
    random_forest = "Random forest"
  )
  factor(unname(names[model]), levels = unname(names))
}

# Ext4 tuning (seed 004): the benchmark workloads of bench.csv in the paper's order, with
# the tool that ran each (filebench runs FFSB's workloads; IOzone and Postmark run as
# themselves).
ext4tune_tools <- c(IOzone = "", FFSB = "\n(filebench)", Postmark = "")
ext4tune_workloads <- c(
  "IOzone seq-write", "IOzone seq-read", "IOzone rand-write", "IOzone rand-read",
  "FFSB large-write", "FFSB large-read", "FFSB small-write", "FFSB small-read",
  "Postmark read", "Postmark write"
)

# Throughput of the named configurations (names: config, values: legend labels) over
# the baseline configuration's in the same repetition, per workload: the median of the
# repetitions.
ext4tune_normalized <- function(bench, configs, baseline) {
  bench$key <- paste(bench$benchmark, bench$workload)
  bench$run_key <- paste(bench$rep, bench$key)
  base <- bench[bench$config == baseline, ]
  rows <- bench[bench$config %in% names(configs), ]
  rows$normalized <- rows$mib_s / base$mib_s[match(rows$run_key, base$run_key)]
  rows <- repetition_medians(rows, "normalized", c("config", "key"))
  labels <- paste0(
    sub(" ", "\n", ext4tune_workloads),
    ext4tune_tools[sub(" .*", "", ext4tune_workloads)]
  )
  rows$workload_label <- factor(labels[match(rows$key, ext4tune_workloads)], levels = labels)
  rows$configuration <- factor(unname(configs[rows$config]), levels = unname(configs))
  rows
}

# The modeled series (each run's block trace on the device model) above the wall time,
# each over the baseline configuration's.
ext4tune_series <- c(
  modeled_mib_s = "modeled (device model)", wall_mib_s = paste(wall_series(), "time")
)
ext4tune_both_series <- function(bench, configs, baseline) {
  rows <- do.call(rbind, lapply(names(ext4tune_series), function(column) {
    bench$mib_s <- bench[[column]]
    rows <- ext4tune_normalized(bench, configs, baseline)
    rows$time <- ext4tune_series[[column]]
    rows
  }))
  rows$time <- factor(rows$time, levels = unname(ext4tune_series))
  rows
}

# One Ext4-tuning figure: both series of the configurations over the baseline's.
plot_ext4tune_figure <- function(bench, configs, baseline, baseline_label) {
  plot_ext4tune(ext4tune_both_series(bench, configs, baseline), baseline_label) +
    facet_wrap(~time, ncol = 1, scales = "free_y")
}

plot_ext4tune <- function(rows, baseline_label) {
  ggplot(rows, aes(workload_label, normalized, fill = configuration)) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
    geom_col(position = position_dodge(width = 0.85), width = 0.8) +
    scale_fill_manual(values = palette_for(nlevels(rows$configuration))) +
    labs(
      x = NULL, y = sprintf("throughput / %s", baseline_label), fill = NULL,
      caption = "IOzone and Postmark run as themselves, FFSB by filebench"
    ) +
    theme_mobifrag()
}

# The ARS evaluation's states (ARS §V.A, after [16]) as a factor in the paper's order.
ars_state_factor <- function(state) {
  factor(state, levels = c("low", "moderate", "high"), labels = c("Low", "Moderate", "High"))
}

# Bars per scheme (ars_scheme_factor) over a category, dodged, labelled with their value.
plot_ars_bars <- function(data, x, y, ylab) {
  ggplot(data, aes(.data[[x]], .data[[y]], fill = scheme)) +
    geom_col(position = position_dodge(width = 0.85), width = 0.8) +
    geom_text(aes(label = signif(.data[[y]], 2)), position = position_dodge(width = 0.85),
      vjust = -0.3, size = 2) +
    scale_fill_manual(values = palette_for(nlevels(data$scheme))) +
    labs(x = NULL, y = ylab, fill = "scheme") +
    theme_mobifrag()
}
