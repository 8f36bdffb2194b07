"""AutoAge (TMC §4.1.1): fill to 70 %, then days of installs, updates and app scenarios.

Output, one trace per day, replayed in turn with a snapshot between days:
- `day-00.iotrace`: one `fill` of a single sequentially written file to the fill
  percentage (its own trace, so that nothing else allocates while it is written); none
  when the replay starts from an already aged image (`aged=True`: janusd's recurring
  run, whose disk a fill/delete aging left at the paper's utilization);
- `day-01.iotrace` ... `day-NN.iotrace`: day 1 installs every app; later days update the
  apps that are due (about every 10 days each, or an app's own period given in
  `update_every`, phases spread at random); every day runs
  each app's scenario for its share of the daily usage time (3.7 h, compressed by
  `scale`), one app at a time, each run preceded by a `reclaim` of random images
  (300 MB on the seeds' 26 GB partition, scaled to the disk) if the disk is full;
- `days.tsv`: what each day holds (updates, sessions, operations, bytes) and the
  generator's estimate of the space the apps use.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

from mobifrag.workflow.atomic import write_lines_atomic
from mobifrag.workloads.generate import MEDIA_THREAD, Generator, scaled
from mobifrag.workloads.iotrace import Op, make_op, write_trace
from mobifrag.workloads.scenarios import AppModel, Schedule

FILL_PATH = "fill/filler.bin"
DAY_COLUMNS = (
    "day", "updates", "sessions", "ops", "sql_ops", "bytes_appended", "app_bytes_estimate",
)  # fmt: skip


@dataclass
class DayPlan:
    day: int
    installs: list[str] = field(default_factory=list)
    updates: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)  # app names in run order


def update_days(
    apps: list[AppModel],
    schedule: Schedule,
    rng: random.Random,
    days: int,
    update_every: dict[str, float] | None = None,
) -> dict[str, list[int]]:
    """Days on which each app is updated: a random phase, then every period ± jitter.
    The period is the app's in `update_every` (days), else its model's, else the
    schedule's."""
    plan: dict[str, list[int]] = {}
    update_every = update_every or {}
    unknown = sorted(set(update_every) - {app.app for app in apps})
    if unknown:
        raise ValueError(f"update periods for apps not replayed: {', '.join(unknown)}")
    for app in apps:
        period = (
            update_every.get(app.app) or app.install.update_every_days or schedule.update_every_days
        )
        if period < 1:
            raise ValueError(f"{app.app}: update period {period:g} days is below one day")
        day = 1 + rng.randint(1, max(1, round(period)))
        found = []
        while day <= days:
            found.append(day)
            jitter = rng.randint(-schedule.update_jitter_days, schedule.update_jitter_days)
            day += max(1, round(period) + jitter)
        plan[app.app] = found
    return plan


def plan_days(
    apps: list[AppModel],
    schedule: Schedule,
    rng: random.Random,
    days: int,
    update_every: dict[str, float] | None = None,
) -> list[DayPlan]:
    updates = update_days(apps, schedule, rng, days, update_every)
    usage_seconds = schedule.use_hours_per_day * 3600
    shares = sum(app.usage_share for app in apps)
    plans = []
    for day in range(1, days + 1):
        plan = DayPlan(day)
        if day == 1:
            plan.installs = [app.app for app in apps]
        plan.updates = [app.app for app in apps if day in updates[app.app]]
        runs = {}
        for app in apps:
            seconds = usage_seconds * app.usage_share / shares
            runs[app.app] = max(1, scaled(rng, seconds / app.session_seconds, 1.0))
        # One app at a time, round robin in a fresh random order each round.
        while any(runs.values()):
            order = [name for name in runs if runs[name] > 0]
            rng.shuffle(order)
            for name in order:
                plan.sessions.append(name)
                runs[name] -= 1
        plans.append(plan)
    return plans


def default_scale(disk_bytes: int, schedule: Schedule) -> float:
    """Counts in proportion to the disk, so every file keeps its real size."""
    return disk_bytes / schedule.reference_disk_bytes


def default_size_scale(disk_bytes: int, schedule: Schedule, scale: float) -> float:
    """Bulk sizes so that a day's growth is the same share of the disk as on the phone.

    Counts per session are multiplied by `scale`, so the files made in sessions get
    (disk / reference disk) / scale; packages, installed a fixed number of times, get
    disk / reference disk."""
    return disk_bytes / schedule.reference_disk_bytes / scale


def _summary(day: int, plan: DayPlan | None, ops: list[Op], gen: Generator | None) -> str:
    appended = sum(op.args[0] for op in ops if op.op == "append")
    appended += sum(op.args[1] for op in ops if op.op == "write")
    estimate = sum(gen.file_sizes().values()) if gen else 0
    fields = [
        day,
        ",".join(plan.updates) if plan else "",
        len(plan.sessions) if plan else 0,
        len(ops),
        sum(1 for op in ops if op.op == "sql"),
        appended,
        estimate,
    ]
    return "\t".join(str(v) for v in fields)


def autoage(
    apps: list[AppModel],
    schedule: Schedule,
    out_dir: Path | str,
    seed: int,
    disk_bytes: int,
    days: int | None = None,
    scale: float | None = None,
    size_scale: float | None = None,
    update_every: dict[str, float] | None = None,
    aged: bool = False,
) -> list[Path]:
    """Write day-00 … day-NN traces and days.tsv; returns the trace paths. With `aged`
    the disk is aged before day 1 by someone else: no day-00 fill trace."""
    days = schedule.days if days is None else days
    if days < 1:
        raise ValueError("days must be at least 1")
    if disk_bytes <= 0:
        raise ValueError("disk bytes must be positive")
    if scale is None:
        scale = default_scale(disk_bytes, schedule)
    if size_scale is None:
        size_scale = default_size_scale(disk_bytes, schedule, scale)
    rng = random.Random(f"autoage:{seed}")
    plans = plan_days(apps, schedule, rng, days, update_every)
    disk_scale = disk_bytes / schedule.reference_disk_bytes
    gen = Generator(apps, random.Random(f"autoage-ops:{seed}"), scale, size_scale, disk_scale)
    out = Path(out_dir)
    reclaim_bytes = math.ceil(schedule.reclaim.bytes * disk_bytes / schedule.reference_disk_bytes)
    comments = [
        f"mobifrag.workloads autoage seed={seed} scale={scale:g} size_scale={size_scale:.6g} "
        f"package_scale={disk_scale:.6g} disk_bytes={disk_bytes}",
        "apps: " + " ".join(app.app for app in apps),
    ]
    written: list[Path] = []
    rows = ["\t".join(DAY_COLUMNS)]

    if not aged:
        fill = [make_op(0, MEDIA_THREAD, "fill", FILL_PATH, schedule.fill_percent)]
        path = out / "day-00.iotrace"
        write_trace(path, fill, [*comments, f"day 0: fill to {schedule.fill_percent}%"])
        written.append(path)
        rows.append(_summary(0, None, fill, None))

    gap = int(schedule.session_gap_seconds * scale * 1e6)
    for plan in plans:
        t = 0
        for name in plan.installs:
            t = gen.install(name, t)
        for name in plan.updates:
            t = gen.update(name, t)
        for name in plan.sessions:
            seed_value = rng.randrange(2**31)
            gen.emit(
                t,
                MEDIA_THREAD,
                "reclaim",
                schedule.reclaim.dir,
                schedule.reclaim.percent,
                reclaim_bytes,
                seed_value,
                schedule.reclaim.glob,
            )
            t = gen.session(name, t + 1) + gap
        ops = gen.take_ops()
        path = out / f"day-{plan.day:02d}.iotrace"
        note = f"day {plan.day}: installs={','.join(plan.installs) or '-'} "
        note += f"updates={','.join(plan.updates) or '-'} sessions={len(plan.sessions)}"
        write_trace(path, ops, [*comments, note])
        written.append(path)
        rows.append(_summary(plan.day, plan, ops, gen))
    write_lines_atomic(out / "days.tsv", rows)
    return written
