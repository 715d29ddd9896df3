"""The fast engine: breadth-first search over whole frontiers at once.

Same search as the reference engine (level by level, invariants checked on
every new state, shortest traces), organised around numpy arrays instead of
Python objects:

* a level is a (words, n) uint64 array of bit-packed states (modelcheck.language.packing);
* expanding it runs the generated numpy kernel (``modelcheck.search.expansion``)
  chunk by chunk: every guard on every state of the chunk, then each action
  instance's assignments on just the states where it is enabled, written
  straight into copies of the parents' words;
* duplicates are removed by fingerprint against the visited set
  (``modelcheck.engines.visited``): with the compiled kernels a hash table
  that each chunk's new states join as they are found, the successors it
  already holds never even leaving the kernel; with the numpy kernels one
  sorted array, the level made unique and merged into it once it is done;
* each state keeps only its parent's number and its action index, from which
  a violation's trace is replayed, as in the reference engine.

Each level is kept in the reference engine's order: a state is credited to
the first (parent, action) that reaches it, and the level is sorted by that
pair, as the breadth-first engine finds states one parent and one action at
a time. So both engines number the states alike and stop at the same
violating state, with the same trace and the same count: the distinct states
found up to and including it (see ``found_before``).

The kernels (``modelcheck.engines.kernels``): by default C generated from
the spec's expression trees, run on as many threads as there are cores,
with the visited set in the kernel's hash table; or the numpy kernel, which
the compiled one is held to. Both number the states alike.

Its settings (``modelcheck.engines.settings.FastSettings``): where to save
checkpoints and how often, a checkpoint to resume, under symmetry whether to
add up the orbit sizes, and the kernels and their threads.

Asked for the state graph (``CheckOptions.graph``, for temporal
properties), it hands each level and each chunk's successors (before
duplicates are dropped) to the graph recorder: a few calls per chunk, each a
no-op otherwise.
"""

from __future__ import annotations

import tempfile
import time
from functools import partial

import numpy as np

from modelcheck.search import checkpoint as ckpt
from modelcheck.runtime.dirlock import holding
from modelcheck.engines.base import DEADLOCK, NO_GRAPH, CheckOptions, CheckResult, Violation
from modelcheck.engines.frontier import FileLevel, Frontier, level_spill_limit, physical_memory, spill_threshold
from modelcheck.engines.kernels import choose as choose_kernels
from modelcheck.engines.settings import FastSettings
from modelcheck.engines.visited import HashedVisited, SortedVisited
from modelcheck.search.expansion import CHUNK, Expander, Expansion
from modelcheck.runtime.limits import SearchStopped, resident_bytes, room_on_disk
from modelcheck.language.packing import Packing, transposed

__all__ = ["CHUNK", "Expander", "FastChecker"]

class ParentStore:
    """Each state's parent number and action, level by level. With a
    ``frontier``, a level's arrays go to files once the levels do: the store
    grows with every state found, and only a trace reads it."""

    def __init__(self, parents: list[np.ndarray] | None = None, actions: list[np.ndarray] | None = None,
                 frontier: Frontier | None = None):
        self.parents: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.starts: list[int] = []
        self.count = 0
        self.frontier = frontier
        for p, a in zip(parents or [], actions or []):
            self.add_level(p, a)

    def add_level(self, parents: np.ndarray, actions: np.ndarray) -> int:
        """Numbers the level's states; returns the first number."""
        start = self.count
        if self.frontier is not None and self.frontier.spilled:
            parents, actions = self.frontier.keep_on_file(parents), self.frontier.keep_on_file(actions)
        self.starts.append(start)
        self.parents.append(parents)
        self.actions.append(actions)
        self.count += parents.size
        return start

    def path_to(self, number: int) -> list[int]:
        out = []
        while number >= 0:
            level = int(np.searchsorted(self.starts, number, side="right")) - 1
            k = number - self.starts[level]
            out.append(int(self.actions[level][k]))
            number = int(self.parents[level][k])
        out.reverse()
        return out


def compose(f, g):
    """x -> f(g(x))."""
    return lambda x: f(g(x))


class FastChecker:
    name = "fast"
    collects_coverage = True

    def check(self, model, options: CheckOptions) -> CheckResult:
        started = time.perf_counter()
        try:
            search = _Search(model, options)
        except SearchStopped as stopped:  # Ctrl-C while the kernel was being made: no state searched yet
            result = CheckResult("fast", "bounded-ok", 0, 0, time.perf_counter() - started, stopped=stopped.reason)
            result.saved = FastSettings.of(options.engine_options).resume  # a resumed checkpoint, untouched
            return result
        with holding(search.checkpoint_dir, "--resume" if search.settings.resume else "--checkpoint"):
            try:
                return search.run()
            finally:
                search.kernels.close()  # also when the search raised: no compiler left running
                search.frontier.close()  # and no level left on disk


class _Search:
    """One run of the fast engine; its fields are the search state."""

    def __init__(self, model, options: CheckOptions):
        from modelcheck.backends.numpy_codegen import compile_numpy
        self.model, self.options = model, options
        making = time.perf_counter()  # the kernels, before the search: not in the search's own time
        self.settings = FastSettings.of(options.engine_options)
        self.packing = Packing(model.schema, self.settings.fingerprint_bits)
        predicate_names = list(dict.fromkeys(list(options.invariants) + list(model.sometimes)))
        self.kernels = choose_kernels(model, self.packing, predicate_names, self.settings.kernels,
                                      self.settings.workers, stopped=lambda: options.limits.stop.requested,
                                      progress=options.progress)
        if self.kernels.compiled is not None:
            self.predicates = self.kernels.compiled.predicates
        else:
            self.predicates = compose(compile_numpy(model, predicate_names).predicates, self.packing.unpack)
        self.canonical, self.rebuild = None, self.replay
        if options.symmetry:  # one representative per orbit of the symmetric constants
            from modelcheck.search.canonical import Canonicaliser, genuine_trace, group_of
            self.canonical = Canonicaliser(model, self.packing, group_of(options.symmetry))
            self.rebuild = partial(genuine_trace, canon=self.canonical)
        self.graph = options.graph.batched(model) if options.graph is not None else NO_GRAPH
        self.expander = Expander(model, options.check_deadlock, coverage=options.coverage, canonical=self.canonical,
                                 graph=self.graph, compiled=self.kernels.compiled, packing=self.packing)
        self.started = time.perf_counter()
        self.kernel_seconds = self.started - making
        options.progress.clear()
        options.progress.restart()
        self.orbit_states = 0 if self.canonical is not None and self.settings.orbit_sizes else None
        self.checkpoint_dir = self.settings.directory
        self.checkpoint_every = float(self.settings.checkpoint_every)
        # only a run that saves or resumes needs it (the model's digest takes a second on a large spec)
        self.identity = ckpt.RunIdentity.of(model, options, self.packing.fingerprint_bits) if self.checkpoint_dir \
            else None
        self.saver = ckpt.Saver(self.checkpoint_dir, self.identity) if self.checkpoint_dir else None
        self.frontier = Frontier(self.packing.words, spill_threshold(options.limits.max_memory))
        self.visited, self.store = self.visited_set(), ParentStore(frontier=self.frontier)
        self.sometimes_seen: dict[str, int | None] = {n: None for n in model.sometimes}
        self.generated = 0
        self.resumed_with, self.resume_seconds = 0, 0.0
        self.notes: list[str] = []
        if self.kernels.told:
            options.progress.note(self.kernels.told)

    def take_up_built_kernel(self) -> None:
        """Between two levels: the optimised kernel built beside the search
        (``--kernels auto``), once it is there, in place of the numpy one or
        tcc's. All find the same states in the same order. The visited set
        moves into the kernel's hash tables; from tcc's kernel's tables,
        which are the same, it only changes hands."""
        compiled = self.kernels.ready(time.perf_counter() - self.started)
        if compiled is None:
            return
        if isinstance(self.visited, HashedVisited):
            self.visited.hashed.kernel = compiled
        else:
            try:
                self.visited = HashedVisited(compiled.fingerprint_set(self.visited.fps, self.options.limits.make_room))
            except SearchStopped:  # its tables would pass --max-memory: the search stays on numpy
                self.kernels.compiled = None
                compiled.close()
                self.options.progress.note("the compiled kernel was not taken up: its hash tables would pass "
                                           "--max-memory; the search goes on with numpy")
                return
        self.predicates = compiled.predicates
        self.expander.use_compiled(compiled)
        self.options.progress.note(self.kernels.told)

    def visited_set(self, fps: np.ndarray | None = None):
        """The visited set: the compiled kernel's hash tables, or a sorted
        array. ``fps``: fingerprints to start with, in any order."""
        compiled = self.kernels.compiled
        if compiled is None:
            return SortedVisited(None if fps is None else np.unique(fps), self.packing.fingerprint_dtype)
        # its tables ask before they grow; past --max-memory they fill further, then stop the search
        return HashedVisited(compiled.fingerprint_set(fps, self.options.limits.make_room))

    # --- results --------------------------------------------------------------
    def finish(self, result: str, depth: int, violation: Violation | None = None,
               stopped: str | None = None, found: int | None = None) -> CheckResult:
        """``found``: at a violation, the states the reference engine had found when it stopped."""
        self.options.progress.clear()
        self.kernels.close()
        found = len(self.visited) if found is None else found
        r = CheckResult("fast", result, found, depth, time.perf_counter() - self.started,
                        violation, self.generated, self.sometimes_seen, list(self.notes), stopped,
                        self.graph if self.options.graph is not None else None)
        r.resumed_with, r.resume_seconds = self.resumed_with, self.resume_seconds
        r.kernel_seconds, r.kernel_build = self.kernel_seconds, self.kernels.built_here()
        r.fingerprint_bits = self.packing.fingerprint_bits
        if self.visited.crowded:
            r.notes.append("--max-memory left no room to grow the visited set's hash tables, so they filled past "
                           "70% (up to 90%): lookups took longer, and nothing found changed")
        if self.orbit_states is not None:
            r.notes.append(f"the representatives stand for {self.orbit_states:,} states (the sum of their orbit sizes)")
        if self.saver is not None and self.saver.problem:
            r.notes.append(self.saver.problem)
        return r

    def replay(self, model, path: list[int]) -> tuple[list[tuple], list[int | None]]:
        """``rebuild_trace`` done with the engine's own kernel: each step's
        successor by its action, from the packed state before it."""
        words = self.packing.pack_states([model.init_states[-1 - path[0]]])
        states, actions = [self.packing.unpack_state(words[:, 0])], [None]
        for index in path[1:]:
            found = self.expander.generate(words)
            taken = np.flatnonzero(found.actions == index)
            if taken.size == 0:
                raise RuntimeError(f"trace replay failed: {model.instances[index].label()} is not enabled")
            words = found.words[:, taken[:1]]
            states.append(self.packing.unpack_state(words[:, 0]))
            actions.append(index)
        return states, actions

    def trace_to(self, number: int, invariant: str) -> Violation:
        states, actions = self.rebuild(self.model, self.store.path_to(number))
        return Violation(invariant, states, actions)

    def check_level(self, words: np.ndarray, first_number: int, depth: int) -> CheckResult | None:
        """The result if a state of the level breaks an invariant: the first
        such state in the reference engine's order, counted as it counts it
        (every state found up to and including that one)."""
        invariants = self.options.invariants
        if self.orbit_states is not None:
            self.orbit_states += int(self.canonical.orbit_sizes(words).sum())
        for start in range(0, words.shape[1], CHUNK):
            results = self.predicates(words[:, start:start + CHUNK])
            failing = [int(np.argmin(results[inv])) for inv in invariants if not results[inv].all()]
            row = min(failing) if failing else None
            for name, seen in self.sometimes_seen.items():  # only states before a violating one count
                if seen is None and results[name][:row].any():
                    self.sometimes_seen[name] = depth
            if row is not None:
                invariant = next(inv for inv in invariants if not results[inv][row])
                number = first_number + start + row
                violation = self.trace_to(number, invariant)
                violation.first_in_level = number == first_number
                return self.finish("violation", depth, violation, found=number + 1)
        return None

    # --- checkpoints ------------------------------------------------------------
    def snapshot(self, depth: int, level_words, level_start: int) -> ckpt.SearchState:
        """The search as a checkpoint saves it: the level as it is (in
        memory, or its file), the visited set a slice of a table at a time."""
        return ckpt.SearchState(depth, level_words, level_start, self.visited.chunks(), len(self.visited),
                                self.store.parents, self.store.actions, self.generated, dict(self.sometimes_seen))

    def save(self, depth: int, level_words: np.ndarray, level_start: int) -> None:
        seconds = self.saver.save(self.snapshot(depth, level_words, level_start))
        if seconds is None:  # the search goes on; the report says what is kept
            self.options.progress.note(f"warning: {self.saver.problem}")
            return
        self.options.progress.note(f"checkpoint saved at depth {depth} ({len(self.visited):,} states, "
                                   f"{seconds:.1f} s) in {self.checkpoint_dir}")

    def restore(self) -> tuple[int, np.ndarray, int]:
        reading = time.perf_counter()  # not the kernels' build before it: that is any run's
        state = ckpt.load(self.settings.resume, self.identity, self.options.max_depth, self.packing.fingerprints,
                          visited_set=self.visited_set, words=self.packing.words)
        self.visited = state.visited
        self.store = ParentStore(state.parents, state.actions, self.frontier)
        self.generated = state.generated
        self.sometimes_seen.update(state.sometimes)
        self.notes.append(f"resumed at depth {state.depth} with {len(self.visited):,} states")
        self.resumed_with = len(self.visited)
        self.resume_seconds = time.perf_counter() - reading
        self.options.progress.resumed(self.resumed_with)
        self.saver.saved_depth = state.depth
        return state.depth, self.resumed_level(state), state.level_start

    def resumed_level(self, state: ckpt.SearchState):
        """The checkpoint's frontier: read into memory, or, when it is as
        large as a level that would go to a file, read from the checkpoint's
        own file (which stays the checkpoint's)."""
        rows = state.level
        spill_above = self.frontier.spill_above
        if spill_above is None or rows.nbytes <= spill_above:
            return transposed(rows)
        return FileLevel(state.level_file, rows.shape[1], rows.shape[0], owned=False)

    # --- the search ----------------------------------------------------------------
    def start(self) -> tuple[int, np.ndarray, int] | CheckResult:
        model = self.model
        init_words = self.packing.pack_states(model.init_states)
        if self.canonical is not None:
            init_words = self.canonical.words(init_words)
        all_fps = self.packing.fingerprints(init_words)
        fps, first = np.unique(all_fps, return_index=True)
        order = np.sort(first)  # the spec's order of initial states
        self.generated += len(model.init_states)
        level_start = self.store.add_level(np.full(order.size, -1, np.int64), (-1 - order).astype(np.int32))
        self.visited.add(fps)
        if self.options.coverage is not None:
            self.options.coverage.initial(order.size)
        level_words = init_words[:, order]
        self.graph.initial(level_words, all_fps[order], (-1 - order).astype(np.int32))
        bad = self.check_level(level_words, level_start, 1)
        if bad:
            return bad
        return 1, level_words, level_start

    def run(self) -> CheckResult:
        options, progress = self.options, self.options.progress
        if self.settings.resume:
            try:
                depth, level_words, level_start = self.restore()
            except SearchStopped as stopped:  # its visited set's tables would pass --max-memory
                result = self.finish("bounded-ok", 0, stopped=stopped.reason, found=0)
                result.saved = self.settings.resume  # untouched: a resume with more memory continues it
                return result
        else:
            started = self.start()
            if isinstance(started, CheckResult):
                return started
            depth, level_words, level_start = started
        last_save = time.monotonic()
        while level_words.shape[1]:
            self.take_up_built_kernel()
            bounded = options.max_depth is not None and depth >= options.max_depth
            stopped = None if bounded else options.limits.reached(len(self.visited))
            if stopped:
                return self.stop(stopped, depth, level_words, level_start)
            known = len(self.visited)
            expansion, stopped = self.expand_level(level_words, depth)
            if stopped:
                return self.stop(stopped, depth, level_words, level_start)
            if bounded:  # as in the reference engine, the last level is only looked past, not checked
                return self.finish("bounded-ok" if expansion.fps.size else "ok", depth, found=known)
            if expansion.deadlocked >= 0:
                # the reference engine stops there, having found the successors of the states before it
                found = known + int(np.count_nonzero(expansion.parents < expansion.deadlocked))
                return self.finish("violation", depth, self.trace_to(level_start + expansion.deadlocked, DEADLOCK),
                                   found=found)
            if expansion.fps.size == 0:
                break
            numbered, reason = self.on_file(self.store.add_level, expansion.parents + level_start, expansion.actions)
            if reason:  # the level is whole, but without its parents no trace could reach it
                self.visited.forget([expansion])
                self.frontier.release(expansion.words)
                return self.stop(reason, depth, level_words, level_start)
            level_start = numbered
            if options.coverage is not None:
                options.coverage.new_states(expansion.actions)
            self.graph.level(level_start, expansion.words, expansion.fps)
            depth += 1
            bad = self.check_level(expansion.words, level_start, depth)
            if bad:
                return bad
            self.frontier.release(level_words)
            level_words = expansion.words
            progress.search(depth, len(self.visited), level_words.shape[1], force=True)
            if self.checkpoint_dir and time.monotonic() - last_save >= self.checkpoint_every:
                self.save(depth, level_words, level_start)
                last_save = time.monotonic()
        return self.finish("ok", depth)

    def stop(self, reason: str, depth: int, level_words: np.ndarray, level_start: int) -> CheckResult:
        """A limit or Ctrl-C stopped the search: save it, when asked to, so
        that --resume can continue it. Stopped at the depth its checkpoint
        already holds (resumed, and stopped before it found a level whole),
        the search is what that checkpoint holds: it is kept as it is, not
        written again."""
        if self.checkpoint_dir and self.saver.saved_depth != depth:
            self.save(depth, level_words, level_start)
        result = self.finish("bounded-ok", depth, stopped=reason)
        result.saved = self.checkpoint_dir
        return result

    def expand_level(self, level: np.ndarray, depth: int) -> tuple[Expansion, str | None]:
        """The level's new successors, in discovery order and now visited, or
        the reason a limit stopped it (the set then holds whole levels only)."""
        # a level may go to a file where nothing needs it whole in memory (symmetry's orbit sizes, the graph)
        writer = self.frontier.writer(may_spill=isinstance(self.visited, HashedVisited) and self.canonical is None
                                      and not self.graph.records_steps, spill_above=self.spill_limit())
        generated, deadlocked, found = 0, -1, 0
        limits, progress, known = self.options.limits, self.options.progress, len(self.visited)
        for start in range(0, level.shape[1], CHUNK):
            try:
                e = self.expander.expand(level[:, start:start + CHUNK], start, self.visited)
                kept = self.visited.keep_new(e)
            except SearchStopped as stopped:  # the state graph's files found the disk full; a table too large
                return self.abandon(writer), stopped.reason
            generated += e.generated
            if deadlocked < 0 and e.deadlocked >= 0:
                deadlocked = e.deadlocked
            found += kept.fps.size  # new to the levels before (repeats across chunks too, on numpy)
            _, reason = self.on_file(writer.add, kept)
            # the states found belong to the next level: the line names that depth once it has some
            progress.search(depth + 1 if found else depth, known + found,
                            max(0, level.shape[1] - start - CHUNK) + found)
            reason = reason or limits.reached()
            if reason:
                return self.abandon(writer), reason
        merged, reason = self.on_file(self.visited.close_level, writer, self.packing.words, self.expander.instances)
        if reason:
            return self.abandon(writer), reason
        self.generated += generated
        merged.deadlocked = deadlocked
        return merged, None

    def spill_limit(self) -> int | None:
        """How much of the next level may stay in memory, given the memory
        the search holds now and its visited set's tables (``level_spill_limit``)."""
        budget = self.options.limits.max_memory or physical_memory()
        return level_spill_limit(self.frontier.spill_above, budget, resident_bytes(), self.visited.nbytes)

    def abandon(self, writer) -> Expansion:
        """An unfinished level: its states leave the visited set, so that
        the set, its count and a checkpoint hold whole levels only."""
        self.visited.forget(writer.parts)
        writer.discard()
        return Expansion.empty(self.packing.words, self.packing.fingerprint_dtype)

    def on_file(self, write, *args) -> tuple[object, str | None]:
        """``write(*args)``, which may write a level or the parent store to
        a file, and why the search must stop: ``(result, None)``, or
        ``(None, DISK_FULL)`` when the disk had no room for it. A full disk
        stops the search as a limit does, with the levels it found whole,
        rather than losing them all."""
        try:
            with room_on_disk():
                return write(*args), None
        except SearchStopped as stopped:
            self.notes.append(f"the disk holding the search's level files (under {tempfile.gettempdir()}) has no "
                              f"room left ({stopped.__cause__.strerror}); TMPDIR chooses where they go")
            return None, stopped.reason
