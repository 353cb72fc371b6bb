/*
 * gen_workload.c - deterministic synthetic workloads for the benchmarks.
 *
 *   gen_workload KIND OUTDIR [--rows N] [--test-rows N] [--scale S]
 *                [--seed N] [--threads N]
 *   gen_workload --version      prints the data format number (bumped
 *                               whenever the generated data change)
 *
 * KIND is one of
 *   higgs       dense binary task, 28 features shaped like the HIGGS data
 *               (transverse momenta, angles, b-tags and invariant masses
 *               computed from them), 2% of values missing (NaN);
 *               1,000,000 training and 100,000 test rows at scale 1
 *   airline     sparse binary task shaped like the airline-delay data: 6
 *               numeric columns and 5 categorical ones one-hot encoded,
 *               707 columns, 11 stored values per row; 1,000,000 + 100,000
 *   multiclass  dense 10-class task, 30 features; 500,000 + 50,000
 *
 * Every random number comes from a counter-based generator: a splitmix64
 * hash of (seed, stream, row, draw).  Row i of the training set and row i
 * of the test set are therefore the same at any scale, with any number of
 * threads and on every run; a smaller workload is a prefix of a larger one.
 *
 * OUTDIR receives raw little-endian files:
 *   dense:  X_train.f32, X_test.f32          row-major float32, NaN = missing
 *   sparse: X_train.indptr.u64, X_train.indices.u32, X_train.values.f32
 *           and the same for X_test (CSR; absent entries are missing)
 *   y_train.f32, y_test.f32                   labels (class index for
 *                                             multiclass)
 *   meta.json                                 written last: its presence
 *                                             means the directory is complete
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define GEN_FORMAT 1 /* bump when the data of a (kind, seed, rows) change */
#define PI 3.14159265358979323846

/* ---- counter-based random numbers ----------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A stream of draws for one row: draw k of row r of stream s is a pure function of (seed, s, r, k). */
struct rr {
    uint64_t key;
    uint64_t ctr;
};

enum {
    S_TRAIN = 1,   /* row streams: training and test rows are separate */
    S_TEST = 2,
    S_TABLE = 3,   /* per-level effects and airport positions */
    D_FEATURES = 0, /* draw blocks within a row */
    D_MISSING = 1,
    D_LABEL = 2
};

static struct rr rr_init(uint64_t seed, uint64_t stream, uint64_t row, uint64_t block)
{
    struct rr r;
    r.key = mix64(mix64(seed ^ 0x5851f42d4c957f2dULL) ^ mix64(stream * 0x2545f4914f6cdd1dULL + block));
    r.ctr = row << 10; /* up to 1024 draws per row and block */
    return r;
}

static uint64_t rr_next(struct rr *r)
{
    return mix64(r->key ^ mix64(r->ctr++));
}

/* Uniform on the open interval (0, 1). */
static double unif(struct rr *r)
{
    return ((double)(rr_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double normal(struct rr *r)
{
    double u = unif(r), v = unif(r);
    return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

static double expo(struct rr *r)
{
    return -log(unif(r));
}

static double sigmoid(double z)
{
    return 1.0 / (1.0 + exp(-z));
}

/* A fixed pseudo-random normal for table entry i of table t (effects of categorical levels). */
static double table_normal(uint64_t seed, uint64_t t, uint64_t i)
{
    struct rr r = rr_init(seed, S_TABLE, i, t);
    return normal(&r);
}

static double table_unif(uint64_t seed, uint64_t t, uint64_t i)
{
    struct rr r = rr_init(seed, S_TABLE, i, t);
    return unif(&r);
}

/* ---- the workloads ---------------------------------------------------- */

struct kind {
    const char *name;
    const char *task; /* binary, multiclass */
    int num_class;
    int sparse;
    uint64_t ncol;
    uint64_t max_nnz; /* sparse: stored values per row at most */
    uint64_t train_rows, test_rows;
    double missing;
    /* Fills one row: dense kinds write ncol floats to x, sparse kinds
     * write (idx, val) pairs and return their count; *y gets the label. */
    uint64_t (*row)(uint64_t seed, uint64_t stream, uint64_t r, float *x, uint32_t *idx, float *y);
};

/* -- higgs -- */

struct p4 {
    double e, px, py, pz;
};

static struct p4 p4_from(double pt, double eta, double phi)
{
    struct p4 v;
    v.px = pt * cos(phi);
    v.py = pt * sin(phi);
    v.pz = pt * sinh(eta);
    v.e = pt * cosh(eta);
    return v;
}

static struct p4 p4_add(struct p4 a, struct p4 b)
{
    struct p4 v = {a.e + b.e, a.px + b.px, a.py + b.py, a.pz + b.pz};
    return v;
}

static double p4_mass(struct p4 v)
{
    double m2 = v.e * v.e - v.px * v.px - v.py * v.py - v.pz * v.pz;
    return m2 > 0 ? sqrt(m2) : 0.0;
}

static double btag_value(struct rr *r)
{
    double u = unif(r);
    return u < 0.55 ? 0.0 : u < 0.8 ? 1.086538 : 2.173076;
}

/*
 * 21 low-level features (lepton pT, eta, phi; missing energy magnitude and
 * phi; four jets with pT, eta, phi, b-tag, ordered by pT) and 7 invariant
 * masses computed from them (m_jj, m_jjj, m_lv, m_jlv, m_bb, m_wbb, m_wwbb).
 * The label depends non-linearly on the masses, the b-tags and the angles.
 */
static uint64_t higgs_row(uint64_t seed, uint64_t stream, uint64_t r, float *x, uint32_t *idx, float *y)
{
    struct rr g = rr_init(seed, stream, r, D_FEATURES);
    struct rr m = rr_init(seed, stream, r, D_MISSING);
    struct rr l = rr_init(seed, stream, r, D_LABEL);
    double f[28], jpt[4], jeta[4], jphi[4], jb[4];
    double lpt, leta, lphi, met, mphi, z;
    struct p4 lep, nu, jet[4], bb;
    int ord[4] = {0, 1, 2, 3}, b1, b2, nb = 0;
    (void)idx;

    lpt = 0.9 * exp(0.45 * normal(&g));
    leta = normal(&g);
    lphi = PI * (2.0 * unif(&g) - 1.0);
    met = 0.8 * expo(&g) + 0.05 * unif(&g);
    mphi = PI * (2.0 * unif(&g) - 1.0);
    for (int j = 0; j < 4; j++) {
        jpt[j] = (1.1 - 0.15 * j) * exp(0.5 * normal(&g));
        jeta[j] = 1.1 * normal(&g);
        jphi[j] = PI * (2.0 * unif(&g) - 1.0);
        jb[j] = btag_value(&g);
    }
    /* jets come ordered by transverse momentum, as in the real data */
    for (int a = 1; a < 4; a++)
        for (int b = a; b > 0 && jpt[ord[b]] > jpt[ord[b - 1]]; b--) {
            int t = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = t;
        }
    f[0] = lpt;
    f[1] = leta;
    f[2] = lphi;
    f[3] = met;
    f[4] = mphi;
    for (int j = 0; j < 4; j++) {
        int o = ord[j];
        f[5 + 4 * j] = jpt[o];
        f[6 + 4 * j] = jeta[o];
        f[7 + 4 * j] = jphi[o];
        f[8 + 4 * j] = jb[o];
        jet[j] = p4_from(jpt[o], jeta[o], jphi[o]);
        nb += jb[o] > 0;
    }
    lep = p4_from(lpt, leta, lphi);
    nu = p4_from(met, 0.0, mphi);
    /* the two jets with the highest b-tags (ties: the harder jet) */
    b1 = 0;
    for (int j = 1; j < 4; j++)
        if (f[8 + 4 * j] > f[8 + 4 * b1]) b1 = j;
    b2 = b1 == 0 ? 1 : 0;
    for (int j = 0; j < 4; j++)
        if (j != b1 && f[8 + 4 * j] > f[8 + 4 * b2]) b2 = j;
    bb = p4_add(jet[b1], jet[b2]);
    f[21] = p4_mass(p4_add(jet[0], jet[1]));
    f[22] = p4_mass(p4_add(p4_add(jet[0], jet[1]), jet[2]));
    f[23] = p4_mass(p4_add(lep, nu));
    f[24] = p4_mass(p4_add(p4_add(jet[0], lep), nu));
    f[25] = p4_mass(bb);
    f[26] = p4_mass(p4_add(bb, jet[b1 == 0 || b2 == 0 ? (b1 == 1 || b2 == 1 ? 2 : 1) : 0]));
    f[27] = p4_mass(p4_add(p4_add(bb, lep), p4_add(nu, jet[2])));

    /* signal-ness: a resonance in m_bb, heavier m_wwbb, central leptons, b-tags */
    {
        double lmbb = log(f[25] + 1e-3) - log(1.6);
        double dphi = cos(lphi - mphi);
        z = 1.6 * exp(-lmbb * lmbb / (2.0 * 0.25 * 0.25)) + 0.9 * tanh(log(f[27] + 1e-3) - 1.5) -
            0.45 * fabs(leta) + 0.35 * (nb >= 2) + 0.25 * (nb >= 3) + 0.3 * dphi * (met > 0.8) +
            0.25 * jeta[ord[0]] * jeta[ord[1]] * (f[21] > 1.5) + 0.3 * log(met + 0.1) -
            0.4 * (f[23] > 1.6) + 0.15 * sin(3.0 * jphi[ord[0]] - 2.0 * lphi);
    }
    *y = unif(&l) < sigmoid(1.8 * (z - 0.35)) ? 1.0f : 0.0f;
    for (int j = 0; j < 28; j++) x[j] = unif(&m) < 0.02 ? NAN : (float)f[j];
    return 28;
}

/* -- airline -- */

#define N_CARRIER 22
#define N_AIRPORT 310
#define N_BLOCK 19
#define N_AIRCRAFT 40
#define A_NUMERIC 6
#define A_CARRIER (A_NUMERIC)
#define A_ORIGIN (A_CARRIER + N_CARRIER)
#define A_DEST (A_ORIGIN + N_AIRPORT)
#define A_BLOCK (A_DEST + N_AIRPORT)
#define A_AIRCRAFT (A_BLOCK + N_BLOCK)
#define A_NCOL (A_AIRCRAFT + N_AIRCRAFT)

static struct airline_tables {
    double carrier_cdf[N_CARRIER], airport_cdf[N_AIRPORT], aircraft_cdf[N_AIRCRAFT];
    double carrier_eff[N_CARRIER], carrier_hour[N_CARRIER], origin_eff[N_AIRPORT],
        dest_eff[N_AIRPORT], aircraft_eff[N_AIRCRAFT], ax[N_AIRPORT], ay[N_AIRPORT];
} at;

static void zipf_prepare(double *cdf, int n, double s)
{
    double w[N_AIRPORT], acc = 0, sum = 0;
    for (int i = 0; i < n; i++) sum += w[i] = pow(i + 1.0, -s);
    for (int i = 0; i < n; i++) cdf[i] = (acc += w[i]) / sum;
    cdf[n - 1] = 1.0;
}

static int zipf_draw(const double *cdf, int n, struct rr *r)
{
    double u = unif(r);
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void airline_prepare(uint64_t seed)
{
    zipf_prepare(at.carrier_cdf, N_CARRIER, 1.1);
    zipf_prepare(at.airport_cdf, N_AIRPORT, 1.0);
    zipf_prepare(at.aircraft_cdf, N_AIRCRAFT, 0.9);
    for (int i = 0; i < N_CARRIER; i++) {
        at.carrier_eff[i] = 0.35 * table_normal(seed, 10, (uint64_t)i);
        at.carrier_hour[i] = 0.04 * table_normal(seed, 11, (uint64_t)i);
    }
    for (int i = 0; i < N_AIRPORT; i++) {
        double hub = pow(i + 1.0, -0.3); /* busy airports are more congested */
        at.origin_eff[i] = 0.3 * table_normal(seed, 12, (uint64_t)i) + 0.5 * hub;
        at.dest_eff[i] = 0.2 * table_normal(seed, 13, (uint64_t)i) + 0.3 * hub;
        at.ax[i] = table_unif(seed, 14, (uint64_t)i);
        at.ay[i] = table_unif(seed, 15, (uint64_t)i);
    }
    for (int i = 0; i < N_AIRCRAFT; i++) at.aircraft_eff[i] = 0.15 * table_normal(seed, 16, (uint64_t)i);
}

static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

/*
 * Numeric: Month, DayofMonth, DayOfWeek, CRSDepTime (hhmm), CRSArrTime
 * (hhmm), Distance (miles) - never zero, so every one is stored.
 * One-hot: carrier (22), origin (310), destination (310), departure time
 * block (19), aircraft type (40).  Label: departure delayed by 15 minutes
 * or more.
 */
static uint64_t airline_row(uint64_t seed, uint64_t stream, uint64_t r, float *val, uint32_t *idx, float *y)
{
    struct rr g = rr_init(seed, stream, r, D_FEATURES);
    struct rr l = rr_init(seed, stream, r, D_LABEL);
    int carrier, origin, dest, aircraft, month, dom, dow, hour, minute, block, dep, arr, dur;
    double dist, dx, dy, z;

    carrier = zipf_draw(at.carrier_cdf, N_CARRIER, &g);
    origin = zipf_draw(at.airport_cdf, N_AIRPORT, &g);
    dest = origin;
    for (int t = 0; t < 8 && dest == origin; t++) dest = zipf_draw(at.airport_cdf, N_AIRPORT, &g);
    if (dest == origin) dest = (origin + 1) % N_AIRPORT;
    aircraft = zipf_draw(at.aircraft_cdf, N_AIRCRAFT, &g);
    month = 1 + (int)(12.0 * unif(&g));
    dom = 1 + (int)(month_days[month - 1] * unif(&g));
    dow = 1 + (int)(7.0 * unif(&g));
    {
        double h = unif(&g) < 0.55 ? 8.5 + 2.5 * normal(&g) : 17.0 + 3.0 * normal(&g);
        if (h < 5.0) h = 5.0 + fmod(5.0 - h, 3.0);
        if (h >= 24.0) h = 23.0 - fmod(h - 24.0, 3.0);
        hour = (int)h;
        minute = (int)(60.0 * unif(&g));
    }
    dep = hour * 100 + minute;
    block = hour < 6 ? 0 : hour - 5;
    dx = at.ax[origin] - at.ax[dest];
    dy = at.ay[origin] - at.ay[dest];
    dist = floor(2600.0 * sqrt(dx * dx + dy * dy) + 60.0);
    dur = (int)(35.0 + dist / 8.0 + 12.0 * fabs(normal(&g)));
    {
        int a = (hour * 60 + minute + dur) % (24 * 60);
        arr = (a / 60) * 100 + a % 60;
        if (arr == 0) arr = 2400;
    }

    z = at.carrier_eff[carrier] + at.origin_eff[origin] + at.dest_eff[dest] +
        at.aircraft_eff[aircraft] + 0.09 * (hour - 13) + at.carrier_hour[carrier] * (hour - 13) +
        (month == 6 || month == 7 || month == 8 || month == 12 ? 0.3 : 0.0) -
        (month >= 9 && month <= 11 ? 0.2 : 0.0) + (dow == 5 || dow == 7 ? 0.15 : 0.0) +
        0.12 * (dom >= 20 && month == 12) + 0.0001 * dist +
        ((month <= 2 || month == 12) && at.ay[origin] > 0.65 ? 0.45 : 0.0) +
        (hour >= 17 && origin < 10 ? 0.25 : 0.0);
    *y = unif(&l) < sigmoid(1.3 * z - 2.0) ? 1.0f : 0.0f;

    idx[0] = 0, val[0] = (float)month;
    idx[1] = 1, val[1] = (float)dom;
    idx[2] = 2, val[2] = (float)dow;
    idx[3] = 3, val[3] = (float)dep;
    idx[4] = 4, val[4] = (float)arr;
    idx[5] = 5, val[5] = (float)dist;
    idx[6] = (uint32_t)(A_CARRIER + carrier), val[6] = 1.0f;
    idx[7] = (uint32_t)(A_ORIGIN + origin), val[7] = 1.0f;
    idx[8] = (uint32_t)(A_DEST + dest), val[8] = 1.0f;
    idx[9] = (uint32_t)(A_BLOCK + block), val[9] = 1.0f;
    idx[10] = (uint32_t)(A_AIRCRAFT + aircraft), val[10] = 1.0f;
    return 11;
}

/* -- multiclass -- */

#define M_NCOL 30
#define M_NCLASS 10
#define MC_SHARPNESS 1.0
static double mc_w[M_NCLASS][M_NCOL], mc_inter[M_NCLASS], mc_offset[M_NCLASS];

static void mc_scores(uint64_t seed, uint64_t stream, uint64_t r, double *f, double *score);

static void multiclass_prepare(uint64_t seed)
{
    double f[M_NCOL], s[M_NCLASS], mean[M_NCLASS] = {0};
    const int n = 20000;
    for (int k = 0; k < M_NCLASS; k++) {
        for (int j = 0; j < M_NCOL; j++) {
            /* about 40% of the weights are non-zero */
            double keep = table_unif(seed, 20, (uint64_t)(k * M_NCOL + j));
            mc_w[k][j] = keep < 0.4 ? 0.6 * table_normal(seed, 21, (uint64_t)(k * M_NCOL + j)) : 0.0;
        }
        mc_inter[k] = 0.4 * table_normal(seed, 22, (uint64_t)k);
    }
    /* centre each class's score on a fixed sample so that the classes are
     * roughly balanced (class k a little more frequent than class k+1) */
    for (int i = 0; i < n; i++) {
        mc_scores(seed, S_TABLE, (uint64_t)i, f, s);
        for (int k = 0; k < M_NCLASS; k++) mean[k] += s[k] / n;
    }
    for (int k = 0; k < M_NCLASS; k++) mc_offset[k] = -mean[k] - 0.08 * k;
}

/*
 * 30 features cycling through normal, uniform, exponential, a 10-valued
 * discrete one and one correlated with an earlier feature; each class has a
 * sparse score made of non-linear transforms of them plus an interaction,
 * and the label is the class of the highest score after Gumbel noise.
 */
/* The features of row r of `stream` and each class's score before noise and offset. */
static void mc_scores(uint64_t seed, uint64_t stream, uint64_t r, double *f, double *score)
{
    struct rr g = rr_init(seed, stream, r, D_FEATURES);
    double h[M_NCOL];
    for (int j = 0; j < M_NCOL; j++) {
        switch (j % 5) {
        case 0: f[j] = normal(&g); break;
        case 1: f[j] = 4.0 * unif(&g) - 2.0; break;
        case 2: f[j] = expo(&g); break;
        case 3: f[j] = floor(10.0 * unif(&g)); break;
        default: f[j] = 0.6 * f[j - 4] + 0.8 * normal(&g); break;
        }
    }
    for (int j = 0; j < M_NCOL; j++) {
        /* standardise the exponential and the discrete features first */
        double v = j % 5 == 2 ? f[j] - 1.0 : j % 5 == 3 ? (f[j] - 4.5) / 2.87 : f[j];
        switch (j % 4) {
        case 0: h[j] = v; break;
        case 1: h[j] = 2.0 * tanh(2.0 * v); break;
        case 2: h[j] = fabs(v - 0.5); break;
        default: h[j] = v > 0.3 ? 1.0 : -1.0; break;
        }
    }
    for (int k = 0; k < M_NCLASS; k++) {
        double s = mc_inter[k] * f[0] * f[1] + 0.5 * sin(f[5] + 0.6 * k);
        for (int j = 0; j < M_NCOL; j++) s += mc_w[k][j] * h[j];
        score[k] = s;
    }
}

/*
 * 30 features cycling through normal, uniform, exponential, a 10-valued
 * discrete one and one correlated with an earlier feature; each class has a
 * sparse score made of non-linear transforms of them plus an interaction,
 * and the label is the class of the highest score after Gumbel noise.
 */
static uint64_t multiclass_row(uint64_t seed, uint64_t stream, uint64_t r, float *x, uint32_t *idx, float *y)
{
    struct rr l = rr_init(seed, stream, r, D_LABEL);
    double f[M_NCOL], s[M_NCLASS], best = -HUGE_VAL;
    int label = 0;
    (void)idx;
    mc_scores(seed, stream, r, f, s);
    for (int k = 0; k < M_NCLASS; k++) {
        double v = MC_SHARPNESS * (s[k] + mc_offset[k]) - log(-log(unif(&l))); /* Gumbel noise */
        if (v > best) best = v, label = k;
    }
    *y = (float)label;
    for (int j = 0; j < M_NCOL; j++) x[j] = (float)f[j];
    return M_NCOL;
}

static const struct kind kinds[] = {
    {"higgs", "binary", 0, 0, 28, 0, 1000000, 100000, 0.02, higgs_row},
    {"airline", "binary", 0, 1, A_NCOL, 11, 1000000, 100000, 0.0, airline_row},
    {"multiclass", "multiclass", M_NCLASS, 0, M_NCOL, 0, 500000, 50000, 0.0, multiclass_row},
};

/* ---- output ---------------------------------------------------------- */

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "gen_workload: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* Writes n items of `size` bytes as little-endian (swapping in place on big-endian hosts). */
static void put(FILE *f, void *p, size_t size, size_t n, const char *path)
{
    if (!host_is_little_endian()) {
        unsigned char *b = p;
        for (size_t i = 0; i < n; i++)
            for (size_t a = 0, z = size - 1; a < z; a++, z--) {
                unsigned char t = b[i * size + a];
                b[i * size + a] = b[i * size + z];
                b[i * size + z] = t;
            }
    }
    if (n && fwrite(p, size, n, f) != n) die("cannot write %s", path);
}

struct outfile {
    FILE *f;
    char path[4096];
};

static void out_open(struct outfile *o, const char *dir, const char *name)
{
    snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
    o->f = fopen(o->path, "wb");
    if (o->f == NULL) die("cannot create %s", o->path);
}

static void out_close(struct outfile *o)
{
    if (fclose(o->f) != 0) die("cannot write %s", o->path);
}

#define BLOCK_ROWS 16384

/* Generates rows [0, n) of `stream` into the files of one split; returns the number of stored values. */
static uint64_t write_split(const struct kind *k, uint64_t seed, uint64_t stream, uint64_t n,
                            const char *dir, const char *split)
{
    const uint64_t width = k->sparse ? k->max_nnz : k->ncol;
    float *x = malloc(BLOCK_ROWS * width * sizeof *x);
    uint32_t *idx = k->sparse ? malloc(BLOCK_ROWS * width * sizeof *idx) : NULL;
    uint64_t *cnt = malloc(BLOCK_ROWS * sizeof *cnt), *ptr = malloc(BLOCK_ROWS * sizeof *ptr);
    float *y = malloc(BLOCK_ROWS * sizeof *y);
    struct outfile fx, fi, fv, fy;
    char name[256];
    uint64_t nnz = 0;

    if (!x || !cnt || !ptr || !y || (k->sparse && !idx)) die("out of memory%s", "");
    snprintf(name, sizeof name, "y_%s.f32", split);
    out_open(&fy, dir, name);
    if (k->sparse) {
        uint64_t zero = 0;
        snprintf(name, sizeof name, "X_%s.indptr.u64", split);
        out_open(&fx, dir, name);
        snprintf(name, sizeof name, "X_%s.indices.u32", split);
        out_open(&fi, dir, name);
        snprintf(name, sizeof name, "X_%s.values.f32", split);
        out_open(&fv, dir, name);
        put(fx.f, &zero, sizeof zero, 1, fx.path);
    } else {
        snprintf(name, sizeof name, "X_%s.f32", split);
        out_open(&fx, dir, name);
    }
    for (uint64_t start = 0; start < n; start += BLOCK_ROWS) {
        const long m = (long)(n - start < BLOCK_ROWS ? n - start : BLOCK_ROWS);
#pragma omp parallel for schedule(static)
        for (long i = 0; i < m; i++)
            cnt[i] = k->row(seed, stream, start + (uint64_t)i, x + (uint64_t)i * width,
                            idx ? idx + (uint64_t)i * width : NULL, y + i);
        put(fy.f, y, sizeof *y, (size_t)m, fy.path);
        if (!k->sparse) {
            put(fx.f, x, sizeof *x, (size_t)m * width, fx.path);
            continue;
        }
        for (long i = 0; i < m; i++) {
            nnz += cnt[i];
            ptr[i] = nnz;
            put(fi.f, idx + (uint64_t)i * width, sizeof *idx, cnt[i], fi.path);
            put(fv.f, x + (uint64_t)i * width, sizeof *x, cnt[i], fv.path);
        }
        put(fx.f, ptr, sizeof *ptr, (size_t)m, fx.path);
    }
    out_close(&fy);
    out_close(&fx);
    if (k->sparse) {
        out_close(&fi);
        out_close(&fv);
    } else {
        nnz = n * k->ncol;
    }
    free(x);
    free(idx);
    free(cnt);
    free(ptr);
    free(y);
    return nnz;
}

static uint64_t parse_u64(const char *s, const char *what)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || *end != '\0' || errno) die("bad number for %s", what);
    return (uint64_t)v;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: gen_workload KIND OUTDIR [--rows N] [--test-rows N] [--scale S] [--seed N] [--threads N]\n"
            "       gen_workload --version\n"
            "  KIND: higgs (1M+100k rows at scale 1), airline (1M+100k), multiclass (500k+50k)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const struct kind *k = NULL;
    const char *dir;
    uint64_t seed = 42, rows = 0, test_rows = 0, nnz_train, nnz_test;
    double scale = 1.0;
    char path[4096], tmp[4096];
    FILE *f;

    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("gen_workload format %d\n", GEN_FORMAT);
        return 0;
    }
    if (argc < 3) usage();
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(argv[1], kinds[i].name) == 0) k = &kinds[i];
    if (k == NULL) die("unknown workload kind '%s' (higgs, airline, multiclass)", argv[1]);
    dir = argv[2];
    for (int i = 3; i < argc; i += 2) { /* --option value pairs */
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (val == NULL) usage();
        if (strcmp(opt, "--rows") == 0)
            rows = parse_u64(val, opt);
        else if (strcmp(opt, "--test-rows") == 0)
            test_rows = parse_u64(val, opt);
        else if (strcmp(opt, "--seed") == 0)
            seed = parse_u64(val, opt);
        else if (strcmp(opt, "--scale") == 0) {
            char *end;
            scale = strtod(val, &end);
            if (*end != '\0' || !(scale > 0)) die("bad --scale '%s'", val);
        } else if (strcmp(opt, "--threads") == 0) {
#ifdef _OPENMP
            omp_set_num_threads((int)parse_u64(val, opt));
#endif
        } else {
            usage();
        }
    }
    if (rows == 0) rows = (uint64_t)llround((double)k->train_rows * scale);
    if (test_rows == 0) test_rows = (uint64_t)llround((double)k->test_rows * scale);
    if (rows < 10) rows = 10;
    if (test_rows < 10) test_rows = 10;

    if (mkdir(dir, 0777) != 0 && errno != EEXIST) die("cannot create directory %s", dir);
    if (strcmp(k->name, "airline") == 0) airline_prepare(seed);
    if (strcmp(k->name, "multiclass") == 0) multiclass_prepare(seed);
    /* a stale meta.json must not vouch for files being rewritten */
    snprintf(path, sizeof path, "%s/meta.json", dir);
    remove(path);
    nnz_train = write_split(k, seed, S_TRAIN, rows, dir, "train");
    nnz_test = write_split(k, seed, S_TEST, test_rows, dir, "test");

    snprintf(tmp, sizeof tmp, "%s/meta.json.tmp", dir);
    f = fopen(tmp, "w");
    if (f == NULL) die("cannot create %s", tmp);
    fprintf(f,
            "{\"format\": %d, \"kind\": \"%s\", \"task\": \"%s\", \"num_class\": %d, "
            "\"sparse\": %s, \"rows\": %llu, \"test_rows\": %llu, \"cols\": %llu, "
            "\"nnz\": %llu, \"test_nnz\": %llu, \"missing_fraction\": %g, \"seed\": %llu}\n",
            GEN_FORMAT, k->name, k->task, k->num_class, k->sparse ? "true" : "false",
            (unsigned long long)rows, (unsigned long long)test_rows, (unsigned long long)k->ncol,
            (unsigned long long)nnz_train, (unsigned long long)nnz_test, k->missing,
            (unsigned long long)seed);
    if (fclose(f) != 0 || rename(tmp, path) != 0) die("cannot write %s", path);
    return 0;
}
