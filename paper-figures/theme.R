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
      plot.caption = element_text(hjust = 0, colour = "grey30"),
      plot.caption.position = "plot"
    )
}

# Okabe-Ito for up to eight groups, its yellow last: on white it is the one colour of the
# palette hard to see, so only a figure of eight groups draws one in it. More groups cycle
# the palette rather than fail.
palette_for <- function(n) rep_len(okabe_ito[c(1, 2, 3, 5, 6, 7, 8, 4)], n)

# Display names of the apps of traces/scenarios/ (TMC Table 3) and traces/launch/game.yaml
# (TMC §5.2.1: Angry Birds, "Game" in the paper's figures), by scenario name and by
# package; tests/figures/test_figures.py checks both lists against those files.
app_names <- c(
  camera = "Camera", chrome = "Chrome", earth = "Google Earth", facebook = "Facebook",
  gallery = "Gallery", game = "Game", gmail = "Gmail", instagram = "Instagram",
  messenger = "Messenger", twitter = "Twitter", wechat = "WeChat", youtube = "YouTube"
)
app_packages <- c(
  "com.google.android.GoogleCamera" = "camera", "com.android.chrome" = "chrome",
  "com.google.earth" = "earth", "com.facebook.katana" = "facebook",
  "com.android.gallery3d" = "gallery", "com.google.android.gm" = "gmail",
  "com.instagram.android" = "instagram", "com.facebook.orca" = "messenger",
  "com.twitter.android" = "twitter", "com.tencent.mm" = "wechat",
  "com.google.android.youtube" = "youtube"
)

# An app's display name from its scenario name, or from its package; a name not listed
# stays as it is.
app_label <- function(app) {
  unname(ifelse(app %in% names(app_names), app_names[app], app))
}
package_label <- function(package) {
  unname(ifelse(package %in% names(app_packages), app_label(app_packages[package]), package))
}

# File classes (mobifrag/workloads/file_classes.py) as the paper names them, in its order, and
# their colours: SQLite, the class the paper follows, in the palette's strongest.
file_classes <- c(sqlite = "SQLite", executable = "executable", multimedia = "multimedia",
  other = "other")
file_class_colours <- c(
  SQLite = "#D55E00", executable = "#0072B2", multimedia = "#009E73", other = "#000000"
)
file_class_factor <- function(class) {
  labels <- unname(ifelse(class %in% names(file_classes), file_classes[class], class))
  factor(labels, levels = union(intersect(file_classes, labels), labels))
}

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

# The paper's value of one of the figure's claims (by id) from its reference table, to
# mark in the figure's own data; NA when the figure has no reference table or no such claim.
paper_value <- function(id, reference = figure_reference()) {
  value <- reference$paper_value[reference$id == id]
  if (length(value) == 1) value else NA_real_
}

# The paper's values marked in a figure's own data: `points` holds the figure's
# coordinates (and facet columns) of each claim named in its `claim` column; `value`
# becomes the paper's value (`transform`ed to the figure's scale), and a claim without a
# paper value in the reference table is not drawn. Black diamonds labelled "paper"
# (the label right of the diamond; hjust > 1 puts it left, vjust < 0 above).
paper_marks <- function(points, x, transform = identity, nudge_x = 0, hjust = -0.25,
                        vjust = 0.5, reference = figure_reference()) {
  points$value <- transform(vapply(points$claim, paper_value, numeric(1), reference = reference))
  points <- points[!is.na(points$value), , drop = FALSE]
  list(
    geom_point(
      data = points, aes(x = .data[[x]], y = value), inherit.aes = FALSE,
      position = position_nudge(x = nudge_x), shape = 18, size = 3.2, colour = "black"
    ),
    geom_text(
      data = points, aes(x = .data[[x]], y = value, label = "paper"), inherit.aes = FALSE,
      position = position_nudge(x = nudge_x), hjust = hjust, vjust = vjust, size = 2.6
    )
  )
}

# The figure's claims: the paper's value and band of each, beside this run's median and
# interval, one row per claim. The figure rule writes the table from config/claims.yaml
# (mobifrag.report.figure_reference) and hands its path over in MOBIFRAG_FIGURE_REFERENCE;
# NULL when a script runs without one or the figure shows no claim.
figure_reference <- function(path = Sys.getenv("MOBIFRAG_FIGURE_REFERENCE")) {
  if (!nzchar(path)) return(NULL)
  if (!file.exists(path)) stop(sprintf("%s: no such reference table", path), call. = FALSE)
  reference <- utils::read.csv(path, stringsAsFactors = FALSE, check.names = FALSE)
  needed <- c(
    "id", "label", "paper_value", "band_low", "band_high", "measured", "ci_low", "ci_high",
    "verdict", "paper_text", "measured_text"
  )
  missing <- setdiff(needed, names(reference))
  if (length(missing) > 0) {
    stop(sprintf("%s: no column(s) %s", path, paste(missing, collapse = ", ")), call. = FALSE)
  }
  if (nrow(reference) == 0) return(NULL)
  reference
}

# Verdicts as the claims chart and every figure's claims panel colour them.
verdict_colours <- c(
  "reproduced" = "#009E73", "not reproduced" = "#D55E00", "inconclusive" = "#E69F00",
  "not reached" = "#56B4E9", "calibrated" = "#CC79A7", "not judged" = "#0072B2",
  "not measured" = "#999999", "beyond the platform" = "#000000"
)

# Claims measure different things, so each is drawn over a value of its own: the paper's
# value, else the band's finite edge (the paper gave only a bound), else the measured one.
claim_reference <- function(claims) {
  first_usable <- function(paper, low, high, measured) {
    for (value in c(paper, low, high, measured)) {
      if (is.finite(value) && value != 0) return(abs(value))
    }
    1
  }
  mapply(first_usable, claims$paper_value, claims$band_low, claims$band_high, claims$measured)
}

# The band, measured point and interval of each claim over its reference value, kept
# within `limits` (NA stays NA); `beyond` marks a measured value past them.
claims_on_axis <- function(claims, limits) {
  claims$reference <- claim_reference(claims)
  on_axis <- function(value) {
    ratio <- value / claims$reference
    ifelse(is.na(ratio), NA, pmin(pmax(ratio, limits[[1]]), limits[[2]]))
  }
  ratio <- claims$measured / claims$reference
  claims$beyond <- !is.na(ratio) & (ratio < limits[[1]] | ratio > limits[[2]])
  claims$band_from <- on_axis(claims$band_low)
  claims$band_to <- on_axis(claims$band_high)
  claims$point <- on_axis(claims$measured)
  claims$from <- on_axis(claims$ci_low)
  claims$to <- on_axis(claims$ci_high)
  claims
}

# The axis of a figure's claims panel: every finite band edge and measured value over its
# reference, with the paper's (1), widened by half on a log scale and kept within 1/20..20.
reference_limits <- function(claims) {
  ratios <- unlist(claims[c("band_low", "band_high", "measured", "ci_low", "ci_high")]) /
    claim_reference(claims)
  ratios <- ratios[is.finite(ratios) & ratios > 0]
  span <- range(c(1, ratios))
  c(max(span[[1]] / 1.5, 1 / 20), min(span[[2]] * 1.5, 20))
}

# Inches of a claims panel: its axis, legend and caption, and a row per claim.
reference_panel_height <- function(reference) 1 + 0.36 * nrow(reference)

# The paper beside this run for each claim a figure shows: a row per claim named by its
# label, with the paper's value and band and this run's median and interval in figures;
# on a log axis of each over its reference, the paper's value is the dashed line at 1
# labelled "paper" (a diamond where the paper gives a number), the band that reproduces
# the claim a grey bar, this run's median and 95 % interval a point and bar coloured by
# its verdict, which the row's text names.
reference_panel <- function(reference) {
  limits <- reference_limits(reference)
  rows <- claims_on_axis(reference, limits)
  rows$row <- factor(rows$id, levels = rev(rows$id))
  labels <- paste(rows$label, rows$paper_text, rows$measured_text, sep = "\n")
  present <- intersect(names(verdict_colours), rows$verdict)
  rows$verdict <- factor(rows$verdict, levels = present)
  measured <- rows[!is.na(rows$point), ]
  paper <- rows[!is.na(rows$paper_value), ]
  ggplot(rows, aes(y = row)) +
    geom_vline(xintercept = 1, linetype = "dashed", colour = "grey30") +
    geom_segment(aes(x = band_from, xend = band_to, yend = row),
      colour = "grey80", linewidth = 3, lineend = "butt"
    ) +
    geom_point(data = paper, aes(x = 1), shape = 18, size = 2.4, colour = "black") +
    geom_errorbarh(data = measured, aes(xmin = from, xmax = to, colour = verdict), height = 0.4) +
    geom_point(data = measured, aes(x = point, colour = verdict, shape = beyond), size = 1.8) +
    scale_x_log10(limits = limits, sec.axis = dup_axis(breaks = 1, labels = "paper", name = NULL)) +
    scale_y_discrete(labels = stats::setNames(labels, rows$id)) +
    scale_colour_manual(values = verdict_colours[present], guide = "none") +
    scale_shape_manual(values = c("FALSE" = 16, "TRUE" = 17), guide = "none") +
    labs(
      x = "value / the paper's (log scale)", y = NULL,
      caption = paste(
        "Dashed line and diamond: the paper's value (where the paper gives only a bound, the",
        "band's edge). Grey bar: the band that reproduces the claim. Point and bar: this",
        "run's median and 95 % interval, coloured by verdict; a triangle: beyond the axis."
      )
    ) +
    theme_mobifrag(base_size = 8) +
    theme(axis.text.y = element_text(hjust = 0, lineheight = 0.95, size = 6))
}

# Width in inches of each of `texts` at `size` points, the widest of R's PDF and PNG
# devices (their fonts differ), so a line measured to fit fits in both files.
text_widths <- function(texts, size) {
  on_device <- function(open) {
    open()
    on.exit(grDevices::dev.off())
    vapply(texts, function(text) {
      grob <- grid::textGrob(text, gp = grid::gpar(fontsize = size))
      grid::convertWidth(grid::grobWidth(grob), "in", valueOnly = TRUE)
    }, numeric(1))
  }
  png_file <- tempfile(fileext = ".png")
  on.exit(unlink(png_file))
  pmax(
    on_device(function() grDevices::pdf(NULL)),
    on_device(function() grDevices::png(png_file, res = 150))
  )
}

# `text` broken between its pieces (split at `sep`) into lines no wider than `width`
# inches at `size` points; a piece wider than that alone stays whole on its line.
fit_lines <- function(text, width, size, sep = " ") {
  pieces <- strsplit(text, sep, fixed = TRUE)[[1]]
  widths <- text_widths(c(pieces, sep), size)
  sep_width <- widths[[length(widths)]]
  lines <- character(0)
  line <- character(0)
  used <- 0
  for (i in seq_along(pieces)) {
    extra <- widths[[i]] + if (length(line) > 0) sep_width else 0
    if (length(line) > 0 && used + extra > width) {
      lines <- c(lines, paste(line, collapse = sep))
      line <- character(0)
      extra <- widths[[i]]
      used <- 0
    }
    line <- c(line, pieces[[i]])
    used <- used + extra
  }
  c(lines, paste(line, collapse = sep))
}

# The caption's size in points under the plot's theme.
caption_size <- function(plot) {
  size <- calc_element("plot.caption", theme_get() + plot$theme)$size
  if (is.null(size)) 8 else size
}

# Inches a caption line may take in a figure `width` inches wide: the plot's margins
# (5.5 pt each side, theme_bw's) off, and 5 % kept for rounding in the font's metrics.
caption_room <- function(width) 0.95 * (width - 2 * 5.5 / 72)

# The plot's caption broken into lines that fit the figure's width, and with a stamp
# its line (commit | device | scale | seed | run date) below, broken at its bars: a
# narrow figure must not cut off the run date or seed.
fit_caption <- function(plot, width, stamp = NULL) {
  size <- caption_size(plot)
  room <- caption_room(width)
  caption <- plot$labels$caption
  lines <- character(0)
  if (!is.null(caption)) {
    paragraphs <- strsplit(caption, "\n", fixed = TRUE)[[1]]
    lines <- unlist(lapply(paragraphs, fit_lines, width = room, size = size))
  }
  if (!is.null(stamp)) lines <- c(lines, fit_lines(stamp$line, room, size, sep = " | "))
  if (length(lines) == 0) return(plot)
  plot + labs(caption = paste(lines, collapse = "\n"))
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

# Plots stacked top to bottom, each `heights` inches of the whole, drawn as one figure;
# each is laid out on the device that draws it (its fonts' sizes), as ggsave does a plot.
stacked_figure <- function(plots, heights) {
  structure(list(plots = plots, heights = heights), class = "stacked_figure")
}

draw_stacked_figure <- function(x, recording = TRUE) {
  grid::grid.newpage()
  rows <- grid::grid.layout(length(x$plots), 1, heights = grid::unit(x$heights, "null"))
  grid::pushViewport(grid::viewport(layout = rows))
  for (i in seq_along(x$plots)) {
    print(x$plots[[i]], vp = grid::viewport(layout.pos.row = i), newpage = FALSE)
  }
  grid::popViewport()
}
registerS3method("grid.draw", "stacked_figure", draw_stacked_figure, envir = asNamespace("grid"))

# A figure with, where its rule handed over a reference table, the paper's values of its
# claims in a panel below, and the stamp of the run under all; PDF and PNG.
save_figure <- function(plot, args, width = 7, height = 3.5) {
  stamp <- figure_stamp()
  reference <- figure_reference()
  plots <- list(plot)
  heights <- height
  if (!is.null(reference)) {
    plots <- c(plots, list(reference_panel(reference)))
    heights <- c(heights, reference_panel_height(reference))
  }
  last <- length(plots)
  plots <- lapply(seq_along(plots), function(i) {
    fit_caption(plots[[i]], width, if (i == last) stamp)
  })
  figure <- stacked_figure(plots, heights)
  total <- sum(heights)
  ggsave(args$pdf, figure,
    width = width, height = total, bg = "white", title = pdf_title(args$pdf, stamp)
  )
  ggsave(args$png, figure, width = width, height = total, bg = "white", dpi = 150)
}

# A table of janusd's recurring defragmentation (janusd/recurring/*.csv) with its rows'
# phase (the snapshot before or after the run, that order), interval (panel titles, the
# shortest first) and app in words.
# One recurring run's label: its aged image's utilization (janusd's 70 % and 90 %
# states; none in tables from before them) and its defragmentation period, in that order.
recurring_run_label <- function(table) {
  utilization <- if ("utilization_percent" %in% names(table)) {
    table$utilization_percent
  } else {
    rep(NA_integer_, nrow(table))
  }
  runs <- unique(data.frame(u = utilization, n = table$interval_days))
  runs <- runs[order(runs$u, runs$n), , drop = FALSE]
  label <- function(u, n) {
    ifelse(is.na(u), paste("defrag every", n, "d"), paste0(u, " %, defrag every ", n, " d"))
  }
  factor(label(utilization, table$interval_days), levels = unique(label(runs$u, runs$n)))
}

read_recurring_table <- function(path) {
  table <- read_table(path)
  table$phase <- factor(table$phase,
    levels = c("before_defrag", "after_defrag"),
    labels = c("before defragmentation", "after defragmentation")
  )
  table$interval <- recurring_run_label(table)
  table$app <- package_label(table$package)
  table
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

# A table with its `rep` column: a table of one run (no such column) is repetition 1.
with_repetitions <- function(table) {
  if (!("rep" %in% names(table))) table$rep <- rep(1L, nrow(table))
  table
}

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
  rows$app <- app_label(rows$app)
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

# How far the centre of the i-th of n bars dodged over `width` lies from its x.
dodged_offset <- function(i, n, width = 0.85) (i - (n + 1) / 2) * width / n

# TMC Fig. 14a/b: mean DoF of the appenders' files per thread count and preallocation
# unit at one utilization level of the treatment table; at Low, the paper's DoF without
# preallocation (10 threads) and with 512 KiB units (5 threads) marked (TMC §6.1.1).
plot_prealloc_dof <- function(dof, level) {
  dof <- dof[dof$level == level & !is.na(dof$dof), ]
  if (nrow(dof) == 0) stop("no ", level, "-utilization runs in the preallocation table")
  means <- aggregate(dof ~ threads + unit_kib, data = dof, FUN = mean)
  means$threads <- factor(means$threads, levels = sort(unique(means$threads)))
  units <- sort(unique(means$unit_kib))
  unit_label <- function(kib) ifelse(kib == 0, "none", paste(kib, "KiB"))
  means$unit <- factor(unit_label(means$unit_kib), levels = unit_label(units))
  paper <- data.frame(
    claim = c("tmc-fig14a-no-prealloc-fragments", "tmc-fig14a-prealloc-512k-dof-1"),
    threads = c("10", "5"), unit_kib = c(0, 512)
  )
  paper <- paper[level == "low" & paper$threads %in% levels(means$threads) &
    paper$unit_kib %in% units, ]
  ggplot(means, aes(threads, dof, fill = unit)) +
    geom_col(position = position_dodge(width = 0.85), width = 0.8) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
    paper_marks(paper, "threads",
      nudge_x = dodged_offset(match(paper$unit_kib, units), length(units))
    ) +
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
