/* fleet_int.h - the fleet's parts and what they share: the nodes and the
 * devices each lists, the pods admitted on them, the queue of writes the
 * workers send, and the lock that guards it all. */
#ifndef MOKKA_FLEET_INT_H
#define MOKKA_FLEET_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <jansson.h>
#include "kube/kube.h"
#include "nvmodel/nvmodel.h"
#include "state.h"
#include "fault/fault.h"
#include "util/util.h"
#include "fleet.h"

#define FLEET_LABEL "mokka.io/fleet"
#define POOL_LABEL "mokka.io/pool"
#define OWNER_ANNOTATION "mokka.io/fleet-owner"
#define DEVICES_ANNOTATION "mokka.io/devices"
#define RUN_TIME_ANNOTATION "mokka.io/run-time"
#define LEASE_NS "kube-node-lease"
#define LEASE_SECONDS 40        /* a kubelet's leaseDurationSeconds */
#define RENEW_MS 10000          /* renewed at a quarter of it, as a kubelet does */
#define WRITE_DEADLINE_MS 60000 /* one write, retries included */

/* One virtual node. Under the fleet's lock, except what only its
 * registering thread touches before the threads start. */
typedef struct fnode {
    char *name;
    const char *pool;           /* NULL: none */
    const char *config;         /* the file its universe came from; NULL: built-in */
    mk_universe *u;
    mk_pdev *dev;               /* the plugin's devices */
    size_t ndev;
    unsigned char *healthy;     /* per device */
    int *user;                  /* per device: the pod slot using it, -1 free */
    json_t *labels;             /* what the fleet puts on the Node */
    char ip[16];
    char uid[64];               /* the Node's metadata.uid, for its Lease's owner */
    int registered;             /* exists in the API server as the fleet's */
    int status_queued, lease_queued, report_queued;
    /* faults (fleet_faults.c's) */
    mk_state st;
    mk_frec *rec;
    json_t *report;             /* its GPUFaultReport, to be written */
    /* the Node as watched (fleet_watch.c's) */
    json_t *seen_labels;        /* its labels, others' included; NULL: not seen yet */
    unsigned long seen_gen;     /* the LIST that last saw it */
} fnode;

enum { POD_ADMITTING, POD_RUNNING, POD_ENDING, POD_DONE, POD_REJECTED, POD_GONE };

/* One pod bound to a virtual node. */
typedef struct fpod {
    char *ns, *name, *uid;
    int node;
    int phase;                  /* POD_* */
    int deleting;               /* has a deletionTimestamp: to be finalised */
    long long end_ms;           /* Unix ms its run time ends; 0: runs until deleted */
    long long start_ms;
    json_t *devices;            /* resource -> [ids] */
    char *reject;               /* why it was rejected */
    json_t *containers;         /* [{name, image}] */
    int queued;
    unsigned long gen;          /* the LIST that last saw it */
} fpod;

typedef enum { W_NODE_CREATE, W_NODE_STATUS, W_LEASE, W_POD, W_REPORT, W_NODE_DELETE,
               W_NODE_NOTREADY } wkind;
typedef struct work { wkind kind; int index; } work;

struct mk_fleet {
    mk_fleet_opts o;
    char *name, *prefix;
    char *owner;                /* the owner annotation: "HOST pid PID" */
    mk_kclient *client;
    char kubelet_version[64];
    long long started_ms;       /* Unix ms */
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* work queued, or stop */
    pthread_cond_t idle;        /* the queue emptied */
    pthread_cond_t tick;        /* wakes the lease and timer threads: stop */
    /* nodes */
    fnode *node;
    size_t nnodes;
    json_t *by_name;            /* name -> index */
    /* pods */
    fpod *pod;
    size_t npods, podcap;
    json_t *by_uid;             /* uid -> slot */
    int *free_slots;            /* slots of pods that are gone, for reuse */
    size_t nfree;
    unsigned long list_gen;     /* the pods' LIST being read */
    /* the write queue: two rings, urgent (leases, nodes) before pods */
    work *q[2];
    size_t qcap[2], qhead[2], qlen[2];
    size_t busy;                /* workers in a request */
    pthread_t *workers;
    int nworkers, started_workers;
    pthread_t lease_thread, timer_thread, fault_thread;
    int lease_started, timer_started, fault_started;
    int stop, failed;
    int wstop;                  /* the workers' own: they outlive the other threads */
    char failure[1024];
    mk_kwatch *pods_watch, *faults_watch, *nodes_watch;
    unsigned long node_list_gen;
    json_t *faults, *fpending, *ppending;   /* GPUFaults by name; a LIST's */
    unsigned long fault_version;
    int faults_down;            /* GPUFaults not watched (yet, or any more) */
    char state_dir[4096];
    int fresh_state_dir;
    /* counts */
    atomic_ulong requests, lease_renewals, node_writes, pod_writes, retries_seen;
    unsigned long pods_seen, pods_running, pods_done, pods_rejected;
    unsigned registered, adopted;
    long long all_registered_ms;
};

#define say(f, warning, ...) mk_logf((f)->o.log, (f)->o.log_ctx, (warning), __VA_ARGS__)

/* fleet_shared.c (times go to the API server through mk_ktime_format) */
long long fleet_unix_ms(void);
/* The fleet failed (the first reason is kept); takes mu itself. */
void fleet_fail(mk_fleet *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* fleet_plan.c: names, universes and devices */
int fleet_plan(mk_fleet *f, int *code, char *err, size_t errlen);
void fleet_plan_free(mk_fleet *f);
/* How many of each resource node n lists (all) or offers (healthy), into obj. */
void fleet_resources(const fnode *n, int healthy_only, json_t *obj);

/* fleet_node.c: the Node object and its status */
json_t *fleet_node_object(mk_fleet *f, size_t i);
json_t *fleet_node_status(mk_fleet *f, size_t i, int ready);
int fleet_register(mk_fleet *f, char *err, size_t errlen);

/* fleet_queue.c: the queue of writes, and one request */
void fleet_queue(mk_fleet *f, wkind kind, int index);   /* with mu held */
int fleet_take(mk_fleet *f, work *w);                   /* with mu held; 0: empty */
/* One request on the worker's connection; 0 with *status, or -1 (err). */
int fleet_request(mk_fleet *f, mk_khttp *h, const char *method, const char *path,
                  const json_t *body, const char *ctype, long *status, json_t **out,
                  char *err, size_t errlen);

/* fleet_work.c: the workers that send the queue */
int fleet_workers_start(mk_fleet *f, char *err, size_t errlen);
void fleet_workers_drain(mk_fleet *f, long long deadline_ms);
void fleet_workers_stop(mk_fleet *f);

/* fleet_node.c: a node's writes */
int fleet_do_node(mk_fleet *f, mk_khttp *h, const work *w);

/* fleet_lease.c */
int fleet_lease_start(mk_fleet *f, char *err, size_t errlen);
int fleet_do_lease(mk_fleet *f, mk_khttp *h, int i);

/* fleet_pods.c */
int fleet_pods_start(mk_fleet *f, char *err, size_t errlen);
int fleet_do_pod(mk_fleet *f, mk_khttp *h, int slot);
void fleet_pods_tick(mk_fleet *f, long long now_ms);   /* with mu held */
void fleet_pods_free(mk_fleet *f);

/* fleet_watch.c */
int fleet_watch_start(mk_fleet *f, char *err, size_t errlen);
void fleet_watch_stop(mk_fleet *f);

/* fleet_faults.c */
int fleet_faults_open(mk_fleet *f, char *err, size_t errlen);
int fleet_faults_start(mk_fleet *f, char *err, size_t errlen);
int fleet_do_report(mk_fleet *f, mk_khttp *h, int i);
void fleet_faults_close(mk_fleet *f);

#endif
