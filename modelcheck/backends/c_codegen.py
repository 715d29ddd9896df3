"""Compile a model's expression trees into C, built by the system compiler.

The same trees the numpy backend vectorises are written out here as scalar
C over one state at a time: the packed words of a state are unpacked into
locals once, every action instance's guard is tested inline, and an enabled
instance's assignments are packed straight into the successor's words and
fingerprinted, with no intermediate arrays.

A range of a chunk's states is expanded in two passes: the first counts
each state's successors, the second writes them at the offsets the counts
give. So the successors come out in the reference engine's order (parent by
parent, each parent's action instances in order) however the states are
split between threads; ctypes releases the GIL while C runs, so threads use
every core.

The shared library is built once per source in the kernel cache, and a
later run with the same model loads it, once checked
(``modelcheck.backends.native``, which raises ``LibraryUnavailable`` when it
can be neither built nor loaded).
"""

from __future__ import annotations

from modelcheck.backends.native import UNIT
from modelcheck.backends.python_codegen import shared_temps
from modelcheck.language.expr import Expr

WORD_MASK = (1 << 64) - 1
SEED, M1, M2 = 0x9E3779B97F4A7C15, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53  # modelcheck.language.packing's fingerprint
SEED2 = 0xD6E8FEB86659FD93  # the second word of a 128-bit fingerprint
# Above this many (slots x functions), each guard, assignment and predicate
# becomes a function of its own (kip320: 41 x 75; the KRaft specs: ~350 x 100)
SPLIT_ABOVE = 10_000
FLAGS = ("-O1", "-shared", "-fPIC", "-std=c99", "-w")

_INFIX = {"add": "+", "sub": "-", "eq": "==", "ne": "!=", "lt": "<", "le": "<=",
          "band": "&", "bor": "|", "bxor": "^", "and": "&&", "or": "||"}


def to_c(e: Expr, temps: dict[int, str] | None = None, var: str = "v{}") -> str:
    """C source for one expression over int64_t locals ``v0, v1, ...`` (or,
    with ``var="v[{}]"``, over an array ``v``)."""
    temps = temps or {}

    def go(x: Expr) -> str:
        name = temps.get(id(x))
        if name is not None:
            return name
        op = x.op
        if op == "const":
            return f"((int64_t){int(x.args[0])}LL)"
        if op == "var":
            return var.format(x.args[0])
        if op in _INFIX:
            return "(" + f" {_INFIX[op]} ".join(go(a) for a in x.args) + ")"
        if op == "not":
            return f"(!{go(x.args[0])})"
        if op == "ite":
            c, a, b = x.args
            return f"({go(c)} ? {go(a)} : {go(b)})"
        raise ValueError(f"unknown operator {op}")

    return go(e)


def _u64(value: int) -> str:
    return f"{value & WORD_MASK}ULL"


def _unpack(layout, indent: str, split: bool = False) -> list[str]:
    """Locals p0, p1, ... (the words of state i) and v0, v1, ... (its slots);
    ``split``: arrays p and v instead, handed to per-instance functions."""
    if split:
        lines = [f"{indent}uint64_t p[{layout.words}];", f"{indent}int64_t v[{len(layout.slots)}];"]
        lines += [f"{indent}p[{w}] = W[{w} * n + i];" for w in range(layout.words)]
        word, value = "p[{}]", "v[{}]"
    else:
        lines = [f"{indent}const uint64_t p{w} = W[{w} * n + i];" for w in range(layout.words)]
        word, value = "p{}", "const int64_t v{}"
    for j, s in enumerate(layout.slots):
        lines.append(f"{indent}{value.format(j)} = (int64_t)(({word.format(s.word)} >> {s.shift}) & {_u64(s.mask)})"
                     f" + {s.lo}LL;")
    return lines


def _pack(layout, values: dict[int, str], indent: str, word: str = "p{}") -> list[str]:
    """Words w[0], w[1], ... of a successor: the parent's (``word``), with the assigned slots replaced."""
    lines = []
    for w in range(layout.words):
        changed = [j for j in sorted(values) if layout.slots[j].word == w]
        if not changed:
            lines.append(f"{indent}w[{w}] = {word.format(w)};")
            continue
        keep = ~sum(layout.slots[j].mask << layout.slots[j].shift for j in changed)
        parts = [f"({word.format(w)} & {_u64(keep)})"]
        parts += [f"((uint64_t)((int64_t)({values[j]}) - {layout.slots[j].lo}LL) << {layout.slots[j].shift})"
                  for j in changed]
        lines.append(f"{indent}w[{w}] = " + " | ".join(parts) + ";")
    return lines


def _fingerprint_type(bits: int) -> list[str]:
    """``fp_t``, one fingerprint: ``hi`` (the 64-bit fingerprint, which picks
    a slot and a part of the visited set), and at 128 bits ``lo`` too."""
    wide = bits == 128
    return ["typedef struct { uint64_t hi;%s } fp_t;" % (" uint64_t lo;" if wide else ""),
            "static inline int fp_is_zero(fp_t f) { return f.hi == 0%s; }" % (" && f.lo == 0" if wide else ""),
            "static inline int fp_same(fp_t x, fp_t y) { return x.hi == y.hi%s; }" % (" && x.lo == y.lo" if wide else ""),
            "static const fp_t FP_EMPTY = {0};"]


def _fingerprint(layout) -> list[str]:
    """``modelcheck.language.packing``'s fingerprint of a state's words (of
    ``layout.fingerprint_bits``); under a VIEW, of the bits of the slots the
    view keeps (``Packing.view_mask``)."""
    mask = layout.view_mask
    lines = ["static inline fp_t fingerprint(const uint64_t *w) {", "    fp_t f;"]
    seeds = [("hi", SEED)] + ([("lo", SEED2)] if getattr(layout, "fingerprint_bits", 64) == 128 else [])
    for name, seed in seeds:
        lines.append(f"    {{ uint64_t h = {_u64(seed)};")
        for w in range(layout.words):
            word = f"w[{w}]" if mask is None else f"(w[{w}] & {_u64(int(mask[w, 0]))})"
            lines += [f"      h ^= {word};", "      h ^= h >> 33;", f"      h *= {_u64(M1)};", "      h ^= h >> 33;",
                      f"      h *= {_u64(M2)};", f"      h = (h ^ (h >> 33)) + {_u64(seed)};"]
        lines.append(f"      f.{name} = h; }}")
    return lines + ["    return f;", "}"]


def _count(instances, layout, split: bool = False) -> list[str]:
    """Each state's guards, kept in ``enabled`` (a byte per state and instance), and its number of successors."""
    k = len(instances)
    lines = ["void mc_count(const uint64_t *W, int64_t n, int64_t lo, int64_t hi, int64_t *counts, uint8_t *enabled) {",
             "    for (int64_t i = lo; i < hi; i++) {"]
    lines += _unpack(layout, "        ", split)
    lines.append(f"        uint8_t *e = enabled + i * {k};")
    lines += [f"        e[{index}] = " + (f"guard_{index}(v);" if split else f"({to_c(inst.guard)}) != 0;")
              for index, inst in enumerate(instances)]
    lines.append("        int64_t c = 0;")
    lines.append(f"        for (int j = 0; j < {k}; j++) c += e[j];")
    return lines + ["        counts[i] = c;", "    }", "}"]


def _assignments(inst, layout, indent: str, split: bool) -> list[str]:
    """The successor's words ``w`` by one instance's assignments, shared subexpressions computed once."""
    var, word = ("v[{}]", "p[{}]") if split else ("v{}", "p{}")
    lines, temps = [], {}
    for j, node in enumerate(shared_temps(list(inst.updates.values()))):
        lines.append(f"{indent}const int64_t t{j} = {to_c(node, temps, var)};")
        temps[id(node)] = f"t{j}"
    return lines + _pack(layout, {slot: to_c(e, temps, var) for slot, e in inst.updates.items()}, indent, word)


def _fill(instances, layout, split: bool = False) -> list[str]:
    """The successors of the enabled instances, written from ``offsets[i]`` on for state i."""
    words, k = layout.words, len(instances)
    lines = ["void mc_fill(const uint64_t *W, int64_t n, int64_t lo, int64_t hi, const uint8_t *enabled,",
             "             const int64_t *offsets, uint64_t *out, int64_t total, int64_t *parents, int32_t *actions,",
             "             fp_t *fps) {",
             f"    uint64_t w[{words}];",
             "    for (int64_t i = lo; i < hi; i++) {",
             f"        const uint8_t *e = enabled + i * {k};"]
    lines += _unpack(layout, "        ", split)
    lines.append("        int64_t k = offsets[i];")
    for index, inst in enumerate(instances):
        lines.append(f"        if (e[{index}]) {{")
        lines += [f"            update_{index}(v, p, w);"] if split else _assignments(inst, layout, "            ", False)
        lines += [f"            out[{w} * total + k] = w[{w}];" for w in range(words)]
        lines += ["            fps[k] = fingerprint(w);", "            parents[k] = i;",
                  f"            actions[k] = {index};", "            k++;", "        }"]
    return lines + ["    }", "}"]


# The fused expansion keeps its latest successors in a small ring while the
# visited set's slots for them are fetched from memory: a successor is looked
# up only once LAG more have been made, by when its slot has (usually)
# arrived, instead of stalling on every lookup.
RING, LAG = 32, 16


def _expand(instances, layout, split: bool = False) -> list[str]:
    """Successors of a range of states that the visited set lacks, written
    compactly: guards, assignments, fingerprints and lookups in one pass."""
    words, k = layout.words, len(instances)
    lines = [
        "typedef struct { uint64_t w[%d]; fp_t fp; int64_t parent; int32_t action; } candidate_t;" % words,
        "static inline int visited_has(fp_t *const *tables, const int64_t *caps, int64_t parts, fp_t fp) {",
        "    int64_t part = set_part(fp, parts);",
        "    return set_has(tables[part], (uint64_t)caps[part] - 1, fp);",
        "}",
        "/* writes candidate c to out at position written if the visited set lacks it; returns the next position */",
        "static inline int64_t settle(const candidate_t *c, fp_t *const *tables, const int64_t *caps, int64_t parts,",
        "                             uint64_t *out, int64_t cap, int64_t written, int64_t *parents, int32_t *actions,",
        "                             fp_t *fps) {",
        "    if (visited_has(tables, caps, parts, c->fp)) return written;",
        f"    for (int w = 0; w < {words}; w++) out[w * cap + written] = c->w[w];",
        "    fps[written] = c->fp; parents[written] = c->parent; actions[written] = c->action;",
        "    return written + 1;",
        "}",
        "#define SETTLE() (written = settle(&ring[(tail++) & %d], tables, caps, parts, out, cap, written, parents, actions, fps))" % (RING - 1),
        "/* Expands states lo.. (up to hi) in the reference engine's order and writes the successors whose",
        "   fingerprints the visited set (its parts' tables) lacks to out (column stride cap), compactly,",
        "   repeats among them included. Stops before a state whose successors might not fit. status[0]: the",
        "   first state not expanded; status[1]: successors made; status[2]: the first state with none, or -1.",
        "   Returns how many were written. */",
        "int64_t mc_expand(const uint64_t *W, int64_t n, int64_t lo, int64_t hi, fp_t *const *tables,",
        "                  const int64_t *caps, int64_t parts, uint64_t *out, int64_t cap, int64_t *parents,",
        "                  int32_t *actions, fp_t *fps, int64_t *status) {",
        f"    candidate_t ring[{RING}];",
        "    int64_t written = 0, made = 0, stuck = -1, head = 0, tail = 0, i;",
        f"    for (i = lo; i < hi && written + {LAG + k} <= cap; i++) {{",
    ]
    lines += _unpack(layout, "        ", split)
    lines.append("        const int64_t before = made;")
    for index, inst in enumerate(instances):
        lines.append(f"        if ({f'guard_{index}(v)' if split else to_c(inst.guard)}) {{")
        lines.append(f"            candidate_t *c = &ring[head & {RING - 1}];")
        lines.append("            uint64_t *w = c->w;")
        lines += [f"            update_{index}(v, p, w);"] if split else _assignments(inst, layout, "            ", False)
        lines += ["            c->fp = fingerprint(w); c->parent = i; c->action = %d;" % index,
                  "            VISITED_PREFETCH(c->fp);",
                  f"            head++; made++; if (head - tail > {LAG}) SETTLE();", "        }"]
    lines += ["        if (made == before && stuck < 0) stuck = i;", "    }",
              "    while (tail < head) SETTLE();",
              "    status[0] = i; status[1] = made; status[2] = stuck;", "    return written;", "}"]
    return lines


def _predicates(exprs: list[Expr], layout, split: bool = False) -> list[str]:
    lines = ["void mc_predicates(const uint64_t *W, int64_t n, int64_t lo, int64_t hi, uint8_t *out) {",
             "    for (int64_t i = lo; i < hi; i++) {"]
    lines += _unpack(layout, "        ", split)
    lines += [f"        out[{k} * n + i] = " + (f"predicate_{k}(v);" if split else f"({to_c(e)}) != 0;")
              for k, e in enumerate(exprs)]
    return lines + ["    }", "}"]


# The split form's per-instance functions are spread over translation units
# of about this many characters each, which the compiler builds at once on
# every core (``modelcheck.backends.native``), and then links.
UNIT_CHARS = 300_000
PRELUDE = ["#include <stdint.h>", "#if defined(__GNUC__)", "#define NOINLINE __attribute__((noinline))",
           "#define INTERNAL __attribute__((visibility(\"hidden\")))", "#else", "#define NOINLINE",
           "#define INTERNAL", "#endif"]
O0_BEGIN = ["#if defined(__GNUC__) && !defined(__clang__)", "#pragma GCC push_options",
            "#pragma GCC optimize (\"O0\")", "#endif"]
O0_END = ["#if defined(__GNUC__) && !defined(__clang__)", "#pragma GCC pop_options", "#endif"]


def _prototypes(instances, predicates: list[Expr]) -> list[str]:
    """The split form's per-instance functions, as the expansion calls them."""
    lines = list(PRELUDE)
    lines += [f"INTERNAL int guard_{index}(const int64_t *v);" for index in range(len(instances))]
    lines += [f"INTERNAL int predicate_{k}(const int64_t *v);" for k in range(len(predicates))]
    lines += [f"INTERNAL void update_{index}(const int64_t *v, const uint64_t *p, uint64_t *w);"
              for index in range(len(instances))]
    return lines


def _per_instance(instances, predicates: list[Expr], layout) -> list[str]:
    """Each guard, assignment and predicate as a function of its own, for the
    split form: a compiler's time grows faster than the size of a function,
    and one function holding a large model's every action takes minutes.
    They are spread over translation units (``UNIT``) that are compiled at
    once. The assignments are left unoptimised: they are the bulk of the
    source (the KRaft specs': 15 MB of C) and optimising them took four
    times as long as the search they serve. The guards and predicates, every
    one of them tested on every state, are optimised: that about halves the
    time to expand a KRaft state, for a few per cent more compiling."""
    optimised = [f"INTERNAL NOINLINE int guard_{index}(const int64_t *v) "
                 f"{{ return ({to_c(inst.guard, None, 'v[{}]')}) != 0; }}" for index, inst in enumerate(instances)]
    optimised += [f"INTERNAL NOINLINE int predicate_{k}(const int64_t *v) {{ return ({to_c(e, None, 'v[{}]')}) != 0; }}"
                  for k, e in enumerate(predicates)]
    plain = ["\n".join([f"INTERNAL NOINLINE void update_{index}(const int64_t *v, const uint64_t *p, uint64_t *w) {{",
                        *_assignments(inst, layout, "    ", True), "}"]) for index, inst in enumerate(instances)]
    units, unit, size = [], None, UNIT_CHARS
    for kind, text in [("optimised", t) for t in optimised] + [("plain", t) for t in plain]:
        if size + len(text) > UNIT_CHARS:
            unit, size = {"optimised": [], "plain": []}, 0
            units.append(unit)
        unit[kind].append(text)
        size += len(text)
    lines = []
    for unit in units:
        lines += [UNIT, *PRELUDE, *unit["optimised"]]
        if unit["plain"]:
            lines += [*O0_BEGIN, *unit["plain"], *O0_END]
    return lines


# A set of fingerprints: open addressing with linear probing over ``cap``
# slots (a power of two; fingerprints are well mixed, so the low bits of
# their first word pick the slot), 0 marking an empty slot, and slot ``cap``
# recording whether the fingerprint 0 itself is in the set. A slot is an
# ``fp_t``: one word, or two for 128-bit fingerprints.
FINGERPRINT_SET = """
/* the slot a fingerprint a few places ahead will probe, fetched while this one is worked on: the tables
   outgrow the caches, and a probe is otherwise a wait for memory */
#if defined(__GNUC__)
#define PREFETCH(t, mask, fps, i, n) do { if ((i) + 16 < (n)) __builtin_prefetch(&(t)[(fps)[(i) + 16].hi & (mask)]); } while (0)
#else
#define PREFETCH(t, mask, fps, i, n) do { } while (0)
#endif

static inline int set_put(fp_t *t, uint64_t mask, fp_t fp) {
    if (fp_is_zero(fp)) { if (t[mask + 1].hi) return 0; t[mask + 1].hi = 1; return 1; }
    uint64_t i = fp.hi & mask;
    while (!fp_is_zero(t[i])) { if (fp_same(t[i], fp)) return 0; i = (i + 1) & mask; }
    t[i] = fp;
    return 1;
}

static inline int set_has(const fp_t *t, uint64_t mask, fp_t fp) {
    if (fp_is_zero(fp)) return t[mask + 1].hi != 0;
    uint64_t i = fp.hi & mask;
    while (!fp_is_zero(t[i])) { if (fp_same(t[i], fp)) return 1; i = (i + 1) & mask; }
    return 0;
}

/* A set is split into parts, each its own table, a fingerprint going to
   the part set_part picks: each worker thread then works on parts of its
   own, and a part still sees its fingerprints in order. The part comes from
   bits 24..55 (of the first word), scaled to 0..parts-1 by a multiplication (a division on
   every lookup would cost more than the probe it leads to), so that it
   hangs on their highest bits, away from the low bits that pick the slot
   within a table and from the top bit, which some callers leave 0. */
static inline int64_t set_part(fp_t fp, int64_t parts) {
    return (int64_t)((((fp.hi >> 24) & 0xFFFFFFFFu) * (uint64_t)parts) >> 32);
}

/* the slot fp will probe in its part's table (of tables, caps and parts in scope), fetched ahead (see
   PREFETCH); a macro, not a function: GCC finds a function holding only a prefetch free of effects and
   drops its calls */
#if defined(__GNUC__)
#define VISITED_PREFETCH(fp) do { const int64_t part_ = set_part((fp), parts); \\
    __builtin_prefetch(tables[part_] + ((fp).hi & ((uint64_t)caps[part_] - 1))); } while (0)
#else
#define VISITED_PREFETCH(fp) do { } while (0)
#endif

/* A worker's share of a batch is the parts lo..hi-1: one pass over the batch puts each fingerprint of
   those parts into its part's table, in order. fresh[i] says whether fps[i] was new (the first of repeats
   is; 0 for other workers' parts: each worker writes a fresh array of its own, so that two threads never
   write into the same cache line); added[p - lo] says how many of part p's were. */
void mc_set_add(fp_t *const *tables, const int64_t *caps, const fp_t *fps, int64_t n, uint8_t *fresh,
                int64_t parts, int64_t lo, int64_t hi, int64_t *added) {
    int64_t counts[hi - lo];
    for (int64_t p = lo; p < hi; p++) counts[p - lo] = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i + 16 < n) VISITED_PREFETCH(fps[i + 16]);
        const int64_t p = set_part(fps[i], parts);
        int put = 0;
        if (lo <= p && p < hi) {
            put = set_put(tables[p], (uint64_t)caps[p] - 1, fps[i]);
            counts[p - lo] += put;
        }
        fresh[i] = (uint8_t)put;
    }
    for (int64_t p = lo; p < hi; p++) added[p - lo] = counts[p - lo];
}

/* out[i] = fps[i] belongs to one of the parts lo..hi-1 and is not in the set (an array of the worker's own) */
void mc_set_lacks(fp_t *const *tables, const int64_t *caps, const fp_t *fps, int64_t n, uint8_t *out,
                  int64_t parts, int64_t lo, int64_t hi) {
    for (int64_t i = 0; i < n; i++) {
        if (i + 16 < n) VISITED_PREFETCH(fps[i + 16]);
        const int64_t p = set_part(fps[i], parts);
        out[i] = lo <= p && p < hi && !set_has(tables[p], (uint64_t)caps[p] - 1, fps[i]);
    }
}

/* takes fp out of the table, moving later entries of its probe run back so that none is cut off from its
   home slot (deletion without tombstones, for linear probing) */
static inline int set_del(fp_t *t, uint64_t mask, fp_t fp) {
    if (fp_is_zero(fp)) { int had = t[mask + 1].hi != 0; t[mask + 1].hi = 0; return had; }
    uint64_t i = fp.hi & mask;
    while (!fp_same(t[i], fp)) { if (fp_is_zero(t[i])) return 0; i = (i + 1) & mask; }
    for (uint64_t j = (i + 1) & mask; !fp_is_zero(t[j]); j = (j + 1) & mask) {
        uint64_t home = t[j].hi & mask;
        /* t[j] may move to the hole at i unless its home lies cyclically in (i, j] */
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) { t[i] = t[j]; i = j; }
    }
    t[i] = FP_EMPTY;
    return 1;
}

/* removes the fps[0..n) of the parts lo..hi-1; removed[p - lo] says how many of part p's were in it */
void mc_set_remove(fp_t *const *tables, const int64_t *caps, const fp_t *fps, int64_t n, int64_t parts,
                   int64_t lo, int64_t hi, int64_t *removed) {
    for (int64_t p = lo; p < hi; p++) removed[p - lo] = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t p = set_part(fps[i], parts);
        if (lo <= p && p < hi) removed[p - lo] += set_del(tables[p], (uint64_t)caps[p] - 1, fps[i]);
    }
}

/* how many of fps[0..n) go to each part */
void mc_set_split(const fp_t *fps, int64_t n, int64_t parts, int64_t *counts) {
    for (int64_t i = 0; i < n; i++) counts[set_part(fps[i], parts)]++;
}

/* moves every fingerprint of one table into another, larger one */
void mc_set_rehash(const fp_t *old, int64_t old_cap, fp_t *t, int64_t cap) {
    for (int64_t i = 0; i < old_cap; i++) {
        PREFETCH(t, (uint64_t)cap - 1, old, i, old_cap);
        if (!fp_is_zero(old[i])) set_put(t, (uint64_t)cap - 1, old[i]);
    }
    t[cap] = old[old_cap];
}
"""


def kernel_source(instances, predicates: list[Expr], layout) -> str:
    """The C translation unit of one model: its successors, its predicates
    and the fingerprint set."""
    lines = ["/* generated by modelcheck from a model's expression trees */", "#include <stdint.h>", ""]
    lines += _fingerprint_type(getattr(layout, "fingerprint_bits", 64)) + [FINGERPRINT_SET]
    lines += _fingerprint(layout) + [""]
    split = len(layout.slots) * (len(instances) + len(predicates)) > SPLIT_ABOVE
    if split:
        lines += _prototypes(instances, predicates) + [""]
    lines += _count(instances, layout, split) + [""]
    lines += _fill(instances, layout, split) + [""]
    lines += _expand(instances, layout, split) + [""]
    lines += _predicates(predicates, layout, split)
    if split:
        lines += [""] + _per_instance(instances, predicates, layout)
    return "\n".join(lines) + "\n"
