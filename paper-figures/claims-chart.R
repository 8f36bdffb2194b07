# The claims chart of a run's report (not a paper figure, so not in registry.yaml; rule
# claims_chart in rules/infra/report.smk): every claim of claims.csv a row, the paper's
# band as a grey bar, the measured median and its 95 % interval as a point with an error
# bar, coloured by verdict. Claims measure different things, so each row is drawn over a
# reference value of its own: the paper's value, else the band's finite edge; the axis is
# that ratio on a log scale, 1 marked, at the top and the bottom. A claim without a
# measured value is named by its verdict at the left edge; values beyond the axis are
# drawn at its edge as triangles. With a fourth argument, a claim-id prefix (tmc,
# janusd, ars, ext4tune), only that paper's claims are drawn: the report shows one chart
# per paper.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

all_args <- commandArgs(trailingOnly = TRUE)
paper_prefix <- if (length(all_args) == 4) all_args[[4]] else NA
args <- if (is.na(paper_prefix)) {
  figure_args(1)
} else {
  list(pdf = all_args[[1]], png = all_args[[2]], tables = all_args[3])
}
claims <- read_table(args$tables[[1]])
needed <- c(
  "id", "figure", "basis", "paper_value", "band_low", "band_high", "measured",
  "ci_low", "ci_high", "repetitions", "verdict"
)
missing <- setdiff(needed, names(claims))
if (length(missing) > 0) {
  stop(sprintf("%s: no column(s) %s", args$tables[[1]], paste(missing, collapse = ", ")))
}

verdict_colours <- c(
  "reproduced" = "#009E73", "not reproduced" = "#D55E00", "inconclusive" = "#E69F00",
  "not reached" = "#56B4E9", "calibrated" = "#CC79A7", "not judged" = "#0072B2",
  "not measured" = "#999999", "beyond the platform" = "#000000"
)
unknown <- setdiff(unique(claims$verdict), names(verdict_colours))
if (length(unknown) > 0) stop("unknown verdict(s) in claims.csv: ", paste(unknown, collapse = ", "))

# The value each row is drawn over: the first finite, non-zero one of these.
reference <- function(paper, low, high, measured) {
  for (value in c(paper, low, high, measured)) {
    if (is.finite(value) && value != 0) return(abs(value))
  }
  1
}
claims$reference <- mapply(
  reference, claims$paper_value, claims$band_low, claims$band_high, claims$measured
)

limits <- c(1 / 20, 20)
# A ratio on the axis: NA stays NA, everything else (±Inf, 0, negatives) within limits.
on_axis <- function(value) {
  ratio <- value / claims$reference
  ifelse(is.na(ratio), NA, pmin(pmax(ratio, limits[[1]]), limits[[2]]))
}
beyond <- function(value) {
  ratio <- value / claims$reference
  !is.na(ratio) & (ratio < limits[[1]] | ratio > limits[[2]])
}

papers <- c(tmc = "TMC", janusd = "janusd", ars = "ARS", ext4tune = "Ext4 tuning")
prefix <- sub("-.*", "", claims$id)
if (!is.na(paper_prefix)) {
  claims <- claims[prefix == paper_prefix, ]
  prefix <- prefix[prefix == paper_prefix]
  if (nrow(claims) == 0) stop(sprintf("%s: no claim of %s", args$tables[[1]], paper_prefix))
}
claims$paper <- factor(
  ifelse(prefix %in% names(papers), papers[prefix], prefix),
  levels = unique(c(papers, prefix))
)
claims$row <- factor(claims$id, levels = rev(unique(claims$id)))
claims$verdict <- factor(claims$verdict, levels = names(verdict_colours))
claims$band_from <- on_axis(claims$band_low)
claims$band_to <- on_axis(claims$band_high)
claims$point <- on_axis(claims$measured)
claims$from <- on_axis(claims$ci_low)
claims$to <- on_axis(claims$ci_high)
claims$beyond <- beyond(claims$measured)

measured <- claims[!is.na(claims$point), ]
unmeasured <- claims[is.na(claims$point), ]

plot <- ggplot(claims, aes(y = row)) +
  geom_vline(xintercept = 1, linetype = "dashed", colour = "grey50") +
  geom_segment(aes(x = band_from, xend = band_to, yend = row),
    colour = "grey75", linewidth = 2.2, lineend = "butt"
  ) +
  geom_errorbarh(data = measured, aes(xmin = from, xmax = to, colour = verdict),
    height = 0.5
  ) +
  geom_point(data = measured, aes(x = point, colour = verdict, shape = beyond), size = 1.6) +
  geom_label(data = unmeasured, aes(x = limits[[1]], label = verdict, colour = verdict),
    hjust = 0, size = 2.2, fill = "white", label.size = 0,
    label.padding = unit(0.05, "lines"), show.legend = FALSE
  ) +
  scale_x_log10(
    limits = limits, breaks = c(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 10, 20),
    labels = c("0.05", "0.1", "0.25", "0.5", "1", "2", "4", "10", "20"),
    sec.axis = dup_axis(name = NULL)
  ) +
  scale_colour_manual(values = verdict_colours, drop = FALSE) +
  scale_shape_manual(values = c("FALSE" = 16, "TRUE" = 17), guide = "none") +
  (if (is.na(paper_prefix)) {
    facet_grid(paper ~ ., scales = "free_y", space = "free_y")
  } else {
    ggtitle(sprintf("%s: %d claims", levels(droplevels(claims$paper))[[1]], nrow(claims)))
  }) +
  labs(
    x = "value / the claim's reference (the paper's value, else the band's edge), log scale",
    y = NULL, colour = "verdict",
    caption = paste(
      "grey bar: the band that reproduces the claim; point and bar: measured median and",
      "its 95 % interval; triangle: beyond the axis"
    )
  ) +
  theme_mobifrag(base_size = 8) +
  theme(strip.text.y = element_text(angle = 0)) +
  guides(colour = guide_legend(nrow = 2, override.aes = list(linetype = 0)))

save_figure(plot, args, width = 8.5, height = 1.6 + 0.13 * nrow(claims))
