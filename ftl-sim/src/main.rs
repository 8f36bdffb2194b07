//! ftl-sim command line.

use clap::{Args, Parser, Subcommand};
use ftl_sim::config::{Allocation, CacheMode, FtlConfig};
use ftl_sim::error::{Error, Location, Result};
use ftl_sim::replay::{self, Arrivals, ReplayOptions};
use ftl_sim::request::Op;
use ftl_sim::rng::SplitMix64;
use ftl_sim::trace::{self, blktrace::Endian, Event, Format, Merge, ReadOptions, RequestSource};
use ftl_sim::{dop, flashsim_conf, summary, synth, Ftl};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ftl-sim",
    version,
    about = "FlashSim/DFTL-style FTL simulator that replays block traces"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Replay a block trace through the device model and write a JSON summary.
    Replay(Box<ReplayArgs>),
    /// Write a synthetic trace (CSV or blktrace binary).
    Gen(GenArgs),
    /// Rewrite a trace as CSV (time_ns,op,sector,sectors,dst_sector), the
    /// requests a replay would see, in time order.
    Convert(ConvertArgs),
    /// Print the device model and its derived geometry as JSON.
    Show(ModelArgs),
}

#[derive(Args)]
struct ModelArgs {
    /// Device profile (YAML) whose storage.ftl section is the model.
    #[arg(long, required_unless_present = "flashsim_conf")]
    device: Option<PathBuf>,
    /// Import a FlashSim ssd.conf instead of a device profile.
    #[arg(long, conflicts_with = "device")]
    flashsim_conf: Option<PathBuf>,
    /// Over-provisioning for an imported ssd.conf without OVERPROVISIONING.
    #[arg(long, default_value_t = 0.07)]
    flashsim_op: f64,
    /// Refuse an ssd.conf key that is neither modelled nor one FlashSim has
    /// (a misspelt key would leave its default in place with a warning only).
    #[arg(long, requires = "flashsim_conf")]
    flashsim_strict: bool,
    /// Override the mapping-cache size in bytes.
    #[arg(long)]
    cache_bytes: Option<u64>,
    /// Override the mapping-cache mode.
    #[arg(long, value_enum)]
    cache_mode: Option<CacheModeArg>,
    /// Override the plane allocation (a placement experiment controlling where
    /// pages go, whatever the profile's).
    #[arg(long, value_enum)]
    allocation: Option<AllocationArg>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum AllocationArg {
    RoundRobin,
    Static,
    Buffered,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum CacheModeArg {
    Tpage,
    Entry,
    /// The whole map in RAM: no translation-page traffic.
    Whole,
}

#[derive(Args)]
struct ReplayArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Trace format.
    #[arg(long, value_enum)]
    format: Format,
    /// blktrace/blkparse event that stands for a request.
    #[arg(long, value_enum, default_value = "issue")]
    event: Event,
    /// Trace files; for blktrace, per-CPU files or directories holding them.
    #[arg(required = true)]
    traces: Vec<PathBuf>,
    /// Remap side file(s) (time_ns,src_sector,dst_sector,sectors).
    #[arg(long)]
    remap: Vec<PathBuf>,
    /// Fraction of the logical space written sequentially before the replay.
    #[arg(long, default_value_t = 0.0)]
    precondition_fill: f64,
    /// Random page overwrites after the fill, before the replay (GC steady state).
    #[arg(long, default_value_t = 0)]
    precondition_random: u64,
    /// Random page overwrites as a fraction of the logical pages (adds to
    /// --precondition-random).
    #[arg(long, default_value_t = 0.0)]
    precondition_random_fraction: f64,
    /// Trace(s) replayed before the measured one and not counted (what was written
    /// before: the measured trace then meets its data where it was placed).
    #[arg(long)]
    precondition_trace: Vec<PathBuf>,
    /// Format of --precondition-trace.
    #[arg(long, value_enum, default_value = "blktrace")]
    precondition_format: Format,
    /// The run's own earlier traces, in --format, replayed after the preconditioning and
    /// not counted: each given one is replayed after the one before it (not merged by
    /// time), writes, trims and flushes only, so the measured trace meets the data where
    /// the run's writes placed it. Repeat it for each earlier phase, oldest first.
    #[arg(long)]
    history_trace: Vec<PathBuf>,
    /// After the preconditioning and the history, collect every plane up to the GC
    /// high watermark, as idle time before the measured trace would: the replay then
    /// pays for the collection its own writes cause, not for the aging's.
    #[arg(long)]
    settle: bool,
    /// Seed of the preconditioning writes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Arrival times: the trace's, a closed loop, or the trace's overlap of
    /// issues and completions (blktrace and blkparse traces).
    #[arg(long, value_enum, default_value = "trace")]
    arrivals: Arrivals,
    /// Outstanding-request limit (0 = none; closed loop defaults to 1).
    #[arg(long, default_value_t = 0)]
    queue_depth: usize,
    /// With --arrivals overlap: requests the workload's synchronous threads keep
    /// in flight whatever the trace shows (a request may go once fewer than
    /// THREADS are outstanding).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    threads: u64,
    /// File -> extent table (fragcheck) for per-file DoP / DoF_P.
    #[arg(long)]
    extents: Option<PathBuf>,
    /// Bytes per unit of the extent table's offsets and lengths.
    #[arg(long, default_value_t = 1)]
    extent_unit: u64,
    /// Bytes added to extent device offsets (partition start on the traced disk).
    #[arg(long, default_value_t = 0)]
    extent_offset: u64,
    /// Per-file DoP table (CSV); needs --extents.
    #[arg(long, requires = "extents")]
    dop_out: Option<PathBuf>,
    /// Per-request latency log (CSV).
    #[arg(long)]
    per_request: Option<PathBuf>,
    /// After the trace, write every dirty cached mapping entry back to its
    /// translation page (counted), so mapping updates still in the cache show
    /// up as flash writes.
    #[arg(long)]
    drain_cache: bool,
    /// Summary JSON (standard output if absent).
    #[arg(short, long)]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct ConvertArgs {
    /// Trace format.
    #[arg(long, value_enum)]
    format: Format,
    /// blktrace/blkparse event that stands for a request.
    #[arg(long, value_enum, default_value = "issue")]
    event: Event,
    /// Trace files; for blktrace, per-CPU files or directories holding them.
    #[arg(required = true)]
    traces: Vec<PathBuf>,
    /// Page size in bytes (uFLIP page numbers only).
    #[arg(long, default_value_t = 4096)]
    page_size: u32,
    #[arg(short, long)]
    out: PathBuf,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum GenFormat {
    Csv,
    Blktrace,
}

#[derive(Args)]
struct GenArgs {
    /// Operation of every request.
    #[arg(long, value_enum, default_value = "write")]
    op: GenOp,
    #[arg(long, default_value_t = 10_000)]
    count: u64,
    /// Requests fall at random aligned offsets within the first N bytes.
    #[arg(long)]
    region_bytes: u64,
    #[arg(long, default_value_t = 4096)]
    size_bytes: u64,
    /// Time between request arrivals, ns.
    #[arg(long, default_value_t = 0)]
    gap_ns: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_enum, default_value = "csv")]
    format: GenFormat,
    #[arg(short, long)]
    out: PathBuf,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum GenOp {
    Read,
    Write,
    /// Random writes followed by as many random reads.
    WriteRead,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Replay(a) => run_replay(&a),
        Cmd::Gen(a) => run_gen(&a),
        Cmd::Convert(a) => run_convert(&a),
        Cmd::Show(a) => run_show(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of standard output is gone (`ftl-sim show | head -c 1`): end
        // as a process that SIGPIPE ended, without a word, as other tools do.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(141)
        }
        Err(e) => {
            eprintln!("ftl-sim: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The model, the profile's name and its per-request host overhead (µs).
type Model = (FtlConfig, Option<String>, f64);

/// Print a warning on standard error and keep it for the summary.
fn warn(warnings: &mut Vec<String>, msg: String) {
    eprintln!("ftl-sim: warning: {msg}");
    warnings.push(msg);
}

fn load_model(m: &ModelArgs, warnings: &mut Vec<String>) -> Result<Model> {
    let (mut cfg, (name, overhead)) = match (&m.device, &m.flashsim_conf) {
        (Some(p), _) => (FtlConfig::from_profile(p)?, profile_info(p)),
        (None, Some(p)) => {
            let imported = flashsim_conf::import(p, m.flashsim_op)?;
            if let (true, Some((k, line))) = (m.flashsim_strict, imported.unknown_keys.first()) {
                return Err(Error::parse(
                    p,
                    Location::Line(*line),
                    format!("unknown key {k}: neither modelled nor FlashSim's (misspelt?)"),
                ));
            }
            for (k, line) in &imported.unknown_keys {
                warn(
                    warnings,
                    format!("{}: line {line}: ignoring unknown key {k}", p.display()),
                );
            }
            (imported.config, (None, 0.0))
        }
        (None, None) => return Err(Error::Config("give --device or --flashsim-conf".into())),
    };
    if let Some(b) = m.cache_bytes {
        cfg.cache.bytes = b;
    }
    if let Some(mode) = m.cache_mode {
        cfg.cache.mode = match mode {
            CacheModeArg::Tpage => CacheMode::Tpage,
            CacheModeArg::Entry => CacheMode::Entry,
            CacheModeArg::Whole => CacheMode::Whole,
        };
    }
    if let Some(allocation) = m.allocation {
        cfg.allocation = match allocation {
            AllocationArg::RoundRobin => Allocation::RoundRobin,
            AllocationArg::Static => Allocation::Static,
            AllocationArg::Buffered => Allocation::Buffered,
        };
    }
    cfg.validate()
        .map_err(|(field, msg)| Error::Config(format!("{field}: {msg}")))?;
    Ok((cfg, name, overhead))
}

/// `name` and `storage.host_overhead_us` of a profile (already parsed once).
fn profile_info(path: &Path) -> (Option<String>, f64) {
    let v: Option<serde_yaml::Value> = ftl_sim::text::read_text(path)
        .ok()
        .and_then(|t| serde_yaml::from_str(&t).ok());
    let name = v
        .as_ref()
        .and_then(|v| v.get("name")?.as_str().map(str::to_string));
    let overhead = v
        .as_ref()
        .and_then(|v| v.get("storage")?.get("host_overhead_us")?.as_f64())
        .unwrap_or(0.0);
    (name, overhead)
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    Ok(BufWriter::with_capacity(
        1 << 20,
        File::create(path).map_err(|e| Error::io(path, e))?,
    ))
}

fn open_source(a: &ReplayArgs, page_size: u32) -> Result<(Box<dyn RequestSource>, Vec<PathBuf>)> {
    let files = trace::expand_paths(&a.traces, a.format)?;
    let opts = ReadOptions {
        event: a.event,
        uflip_page_sectors: u64::from(page_size) / 512,
    };
    if a.arrivals == Arrivals::Overlap && a.event != Event::Issue {
        return Err(Error::Config(
            "--arrivals overlap pairs issue events with their completions: give --event issue"
                .into(),
        ));
    }
    let mut source = trace::open(a.format, &files, opts)?;
    if !a.remap.is_empty() {
        let remaps = trace::remap::RemapReader::open(&a.remap)?;
        source = Box::new(Merge::new(source, Box::new(remaps)));
    }
    Ok((source, files))
}

/// The measured trace read once more for its completion events (overlap
/// arrivals only; formats without completions are refused by name).
fn open_completions(a: &ReplayArgs, files: &[PathBuf]) -> Result<Option<Box<dyn RequestSource>>> {
    if a.arrivals != Arrivals::Overlap {
        return Ok(None);
    }
    if !matches!(a.format, Format::Blktrace | Format::Blkparse) {
        return Err(Error::Config(format!(
            "--arrivals overlap needs issue and completion events: a {} trace has none \
             (use a blktrace or blkparse trace, or --arrivals closed)",
            format!("{:?}", a.format).to_lowercase()
        )));
    }
    let opts = ReadOptions {
        event: Event::Complete,
        uflip_page_sectors: 8,
    };
    trace::open(a.format, files, opts).map(Some)
}

/// Replay --precondition-trace (if any) uncounted; returns its request count.
fn precondition_with_trace(ftl: &mut Ftl, a: &ReplayArgs, page_size: u32) -> Result<u64> {
    if a.precondition_trace.is_empty() {
        return Ok(0);
    }
    let files = trace::expand_paths(&a.precondition_trace, a.precondition_format)?;
    let opts = ReadOptions {
        event: a.event,
        uflip_page_sectors: u64::from(page_size) / 512,
    };
    let mut source = trace::open(a.precondition_format, &files, opts)?;
    let report = replay::replay(ftl, source.as_mut(), ReplayOptions::default(), None)?;
    ftl.reset_measurements();
    Ok(report.requests)
}

/// Replay each --history-trace in turn, its reads left out, uncounted; returns the
/// requests replayed. Each starts on idle flash: its own timestamps begin again at zero.
fn replay_history(ftl: &mut Ftl, a: &ReplayArgs, page_size: u32) -> Result<u64> {
    let opts = ReadOptions {
        event: a.event,
        uflip_page_sectors: u64::from(page_size) / 512,
    };
    let mut replayed = 0;
    for path in &a.history_trace {
        let files = trace::expand_paths(std::slice::from_ref(path), a.format)?;
        let mut source = trace::WritesOnly::new(trace::open(a.format, &files, opts)?);
        replayed += replay::replay(ftl, &mut source, ReplayOptions::default(), None)?.requests;
        ftl.reset_measurements();
    }
    Ok(replayed)
}

fn run_replay(a: &ReplayArgs) -> Result<()> {
    let mut warnings = Vec::new();
    let (cfg, name, host_overhead_us) = load_model(&a.model, &mut warnings)?;
    let mut ftl = Ftl::new(&cfg)?;
    if a.precondition_fill > 0.0 {
        ftl.precondition_sequential(a.precondition_fill)?;
    }
    let random = a.precondition_random
        + (a.precondition_random_fraction.max(0.0) * ftl.geometry().logical_pages as f64) as u64;
    if random > 0 {
        ftl.precondition_random(random, a.seed)?;
    }
    let preconditioned = precondition_with_trace(&mut ftl, a, cfg.geometry.page_size)?;
    let history = replay_history(&mut ftl, a, cfg.geometry.page_size)?;
    if a.settle {
        ftl.settle()?;
    }
    let (mut source, files) = open_source(a, cfg.geometry.page_size)?;
    let mut completions = open_completions(a, &files)?;
    let opts = ReplayOptions {
        arrivals: a.arrivals,
        queue_depth: a.queue_depth,
        threads: usize::try_from(a.threads).unwrap_or(usize::MAX),
    };
    let mut run = |log: Option<(&mut dyn Write, &Path)>| match completions.as_mut() {
        Some(c) => replay::replay_overlap(&mut ftl, source.as_mut(), c.as_mut(), opts, log),
        None => replay::replay(&mut ftl, source.as_mut(), opts, log),
    };
    let report = match &a.per_request {
        Some(p) => {
            let mut w = create(p)?;
            let r = run(Some((&mut w, p)))?;
            w.flush().map_err(|e| Error::io(p, e))?;
            r
        }
        None => run(None)?,
    };
    if report.requests == 0 {
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        warn(
            &mut warnings,
            format!(
                "empty trace: {} holds no requests ({} events skipped); every count is 0",
                names.join(", "),
                report.skipped_events
            ),
        );
    }
    if report.reordered > 0 {
        warn(
            &mut warnings,
            format!(
                "{} requests have a timestamp earlier than one before them (replay.reordered)",
                report.reordered
            ),
        );
    }
    if a.arrivals == Arrivals::Overlap && report.requests > 0 && report.completions == 0 {
        warn(
            &mut warnings,
            "--arrivals overlap: no completion in the trace matched a replayed request, so \
             only --threads set the overlap"
                .into(),
        );
    }
    if a.drain_cache {
        let end = ftl.requests.last_completion;
        ftl.drain_map_cache(end)?;
    }
    let dop_summary = match &a.extents {
        Some(p) => Some(write_dop(&ftl, a, p)?),
        None => None,
    };
    let run = summary::RunInfo {
        device_name: name,
        host_overhead_us,
        trace_files: files.iter().map(|f| f.display().to_string()).collect(),
        format: format!("{:?}", a.format).to_lowercase(),
        arrivals: a.arrivals,
        queue_depth: a.queue_depth,
        threads: (a.arrivals == Arrivals::Overlap).then_some(a.threads),
        precondition_fill: a.precondition_fill,
        precondition_random_writes: random,
        precondition_trace_requests: preconditioned,
        history_trace_writes: history,
        settled: a.settle,
        drained_map_cache: a.drain_cache,
        warnings,
    };
    let s = summary::build(&ftl, run, &report, dop_summary);
    let json = serde_json::to_string_pretty(&s).expect("summary serialises");
    match &a.out {
        Some(p) => std::fs::write(p, json + "\n").map_err(|e| Error::io(p, e)),
        None => print_out(&json),
    }
}

/// `text` and a newline on standard output; an error that names it when the
/// write fails (main ends quietly when the reader has closed it).
fn print_out(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .map_err(|e| Error::io(Path::new("<standard output>"), e))
}

fn write_dop(ftl: &Ftl, a: &ReplayArgs, table: &Path) -> Result<dop::DopSummary> {
    let mut files = dop::read_extents(table, a.extent_unit.max(1))?;
    let (rows, summary) = dop::all_files(ftl, &mut files, a.extent_offset);
    if let Some(p) = &a.dop_out {
        let mut w = create(p)?;
        let io = |e| Error::io(p, e);
        writeln!(w, "file,pages,mapped_pages,avg_parallelism,dop,dof_p").map_err(io)?;
        for r in rows {
            let name = if r.file.contains([',', '"', '\n']) {
                format!("\"{}\"", r.file.replace('"', "\"\""))
            } else {
                r.file.clone()
            };
            writeln!(
                w,
                "{name},{},{},{:.6},{:.6},{:.6}",
                r.pages, r.mapped_pages, r.avg_parallelism, r.dop, r.dof_p
            )
            .map_err(io)?;
        }
        w.flush().map_err(io)?;
    }
    Ok(summary)
}

fn run_gen(a: &GenArgs) -> Result<()> {
    let size = (a.size_bytes / 512).max(1);
    let region = a.region_bytes / 512;
    let mut rng = SplitMix64::new(a.seed);
    let reqs = match a.op {
        GenOp::Read => synth::random_in_region(Op::Read, a.count, region, size, a.gap_ns, &mut rng),
        GenOp::Write => {
            synth::random_in_region(Op::Write, a.count, region, size, a.gap_ns, &mut rng)
        }
        GenOp::WriteRead => {
            let mut v =
                synth::random_in_region(Op::Write, a.count, region, size, a.gap_ns, &mut rng);
            let shift = a.count * a.gap_ns;
            let reads =
                synth::random_in_region(Op::Read, a.count, region, size, a.gap_ns, &mut rng);
            v.extend(reads.into_iter().map(|mut r| {
                r.time_ns += shift;
                r
            }));
            v
        }
    };
    let mut w = create(&a.out)?;
    let io = |e| Error::io(&a.out, e);
    match a.format {
        GenFormat::Csv => synth::write_csv(&reqs, &mut w).map_err(io)?,
        GenFormat::Blktrace => {
            let mut buf = Vec::with_capacity(reqs.len() * 3 * 48);
            synth::blktrace_records(&reqs, 0, Endian::Little, &mut buf);
            w.write_all(&buf).map_err(io)?;
        }
    }
    w.flush().map_err(io)
}

fn run_convert(a: &ConvertArgs) -> Result<()> {
    let files = trace::expand_paths(&a.traces, a.format)?;
    let opts = ReadOptions {
        event: a.event,
        uflip_page_sectors: u64::from(a.page_size) / 512,
    };
    let mut source = trace::open(a.format, &files, opts)?;
    let mut reqs = Vec::new();
    while let Some(traced) = source.next_request() {
        reqs.push(traced?.req);
    }
    let mut w = create(&a.out)?;
    let io = |e| Error::io(&a.out, e);
    synth::write_csv(&reqs, &mut w).map_err(io)?;
    w.flush().map_err(io)
}

fn run_show(m: &ModelArgs) -> Result<()> {
    let (cfg, name, _) = load_model(m, &mut Vec::new())?;
    let geo = ftl_sim::geometry::Geometry::new(&cfg)?;
    let v = serde_json::json!({
        "name": name,
        "model": cfg,
        "derived": {
            "parallel_units": geo.units,
            "physical_pages": geo.physical_pages,
            "logical_pages": geo.logical_pages,
            "logical_bytes": geo.logical_pages * u64::from(geo.page_size),
            "physical_bytes": geo.physical_pages * u64::from(geo.page_size),
            "entries_per_translation_page": geo.entries_per_tpage,
            "translation_pages": geo.tpages,
        }
    });
    print_out(&serde_json::to_string_pretty(&v).expect("json"))
}
