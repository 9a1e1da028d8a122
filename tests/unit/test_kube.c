// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/data/kube.c and kube_logs.c: the kubelet's cgroup
 * layouts (systemd and cgroupfs drivers, the three QoS classes,
 * containerd, CRI-O and docker scopes, nested below other cgroups) to a
 * pod UID, container id and QoS class; paths that are no pod's; the
 * names of the log directories; and the names an index of a temporary
 * log directory gives, or the UID and id where it has no entry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "data/kube.h"
#include "data/kube_logs.h"

#define UID	"1b2c3d4e-5f60-4a1b-9c2d-3e4f5a6b7c8d"
#define UID_	"1b2c3d4e_5f60_4a1b_9c2d_3e4f5a6b7c8d"
#define CID	"4f9e0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7"
#define CID2	"aaaa0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7"

static void assert_pod(const char *path, const char *uid, const char *cid,
		       enum pts_kube_qos qos)
{
	struct pts_kube_ref ref;

	if (kube_parse_cgroup(path, &ref) != 1)
		fail_msg("%s: not read as a pod's cgroup", path);
	assert_string_equal(ref.pod_uid, uid);
	assert_string_equal(ref.container_id, cid);
	assert_int_equal(ref.qos, qos);
}

static void assert_no_pod(const char *path)
{
	struct pts_kube_ref ref;

	if (kube_parse_cgroup(path, &ref))
		fail_msg("%s: read as pod %s", path, ref.pod_uid);
	assert_string_equal(ref.pod_uid, "");
}

static void test_systemd(void **state)
{
	(void)state;
	assert_pod("/kubepods.slice/kubepods-burstable.slice/"
		   "kubepods-burstable-pod" UID_ ".slice/cri-containerd-" CID
		   ".scope", UID, CID, PTS_KUBE_QOS_BURSTABLE);
	assert_pod("/kubepods.slice/kubepods-besteffort.slice/"
		   "kubepods-besteffort-pod" UID_ ".slice/crio-" CID ".scope",
		   UID, CID, PTS_KUBE_QOS_BESTEFFORT);
	assert_pod("/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" CID
		   ".scope", UID, CID, PTS_KUBE_QOS_GUARANTEED);
	/* the pod's own cgroup, and a nested kubelet (kind) */
	assert_pod("/kubepods.slice/kubepods-pod" UID_ ".slice", UID, "",
		   PTS_KUBE_QOS_GUARANTEED);
	assert_pod("/kubelet.slice/kubelet-kubepods.slice/kubepods.slice/"
		   "kubepods-burstable.slice/kubepods-burstable-pod" UID_
		   ".slice/cri-containerd-" CID ".scope/init", UID, CID,
		   PTS_KUBE_QOS_BURSTABLE);
	/* conmon's scope is not a container's: the pod, no container */
	assert_pod("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-"
		   CID ".scope", UID, "", PTS_KUBE_QOS_GUARANTEED);
}

static void test_cgroupfs(void **state)
{
	(void)state;
	assert_pod("/kubepods/burstable/pod" UID "/" CID, UID, CID,
		   PTS_KUBE_QOS_BURSTABLE);
	assert_pod("/kubepods/besteffort/pod" UID "/" CID, UID, CID,
		   PTS_KUBE_QOS_BESTEFFORT);
	assert_pod("/kubepods/pod" UID "/" CID, UID, CID,
		   PTS_KUBE_QOS_GUARANTEED);
	assert_pod("/kubepods/pod" UID, UID, "", PTS_KUBE_QOS_GUARANTEED);
	/* a static pod's UID is its manifest's hash, 32 hex digits */
	assert_pod("/kubepods/burstable/pod0123456789abcdef0123456789abcdef/"
		   CID, "0123456789abcdef0123456789abcdef", CID,
		   PTS_KUBE_QOS_BURSTABLE);
}

static void test_not_pods(void **state)
{
	(void)state;
	assert_no_pod("/");
	assert_no_pod("/system.slice/containerd.service");
	assert_no_pod("/kubepods.slice");
	assert_no_pod("/kubepods.slice/kubepods-burstable.slice");
	assert_no_pod("/kubepods/burstable");
	assert_no_pod("/user.slice/pod" UID "/" CID);	/* not under kubepods */
	assert_no_pod("/kubepods/other/pod" UID "/" CID);
	assert_no_pod("/kubepods/podnot-a-uid/" CID);
	assert_no_pod("/kubepods.slice/kubepods-pod" UID_ ".scope");
	assert_string_equal(kube_qos_name(PTS_KUBE_QOS_BESTEFFORT), "besteffort");
}

static void test_log_names(void **state)
{
	struct pts_kube_names n;

	(void)state;
	assert_int_equal(kube_parse_pod_dir("shop_cart-7d9f_" UID, &n), 0);
	assert_string_equal(n.ns, "shop");
	assert_string_equal(n.pod, "cart-7d9f");
	assert_string_equal(n.key, UID);
	assert_string_equal(n.container, "");
	assert_int_equal(kube_parse_container_log("cart-7d9f_shop_app-server-"
						  CID ".log", &n), 0);
	assert_string_equal(n.pod, "cart-7d9f");
	assert_string_equal(n.ns, "shop");
	assert_string_equal(n.container, "app-server");
	assert_string_equal(n.key, CID);
	assert_int_equal(kube_parse_pod_dir("shop_cart", &n), -1);
	assert_int_equal(kube_parse_pod_dir("a_b_c_" UID, &n), -1);
	assert_int_equal(kube_parse_pod_dir("_cart_" UID, &n), -1);
	assert_int_equal(kube_parse_pod_dir(".", &n), -1);
	assert_int_equal(kube_parse_container_log("cart_shop_app-" CID, &n), -1);
	assert_int_equal(kube_parse_container_log("cart_shop_app-xyz.log", &n),
			 -1);
	assert_int_equal(kube_parse_container_log("cart_app-" CID ".log", &n),
			 -1);
}

static char logs_dir[64];

static void touch(const char *rel)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", logs_dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

static void mkdir_in(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", logs_dir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int setup_logs(void **state)
{
	(void)state;
	snprintf(logs_dir, sizeof(logs_dir), "/tmp/ptscope-kube.XXXXXX");
	if (!mkdtemp(logs_dir))
		return -1;
	mkdir_in("pods");
	mkdir_in("containers");
	mkdir_in("pods/shop_cart-1_" UID);
	mkdir_in("pods/shop_cart-1_" UID "/app");
	touch("containers/cart-1_shop_app-" CID ".log");
	return 0;
}

static int teardown_logs(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", logs_dir);
	return system(cmd);
}

static void identify(struct pts_kube_logs *logs, const char *path,
		     struct pts_kube_id *id)
{
	struct pts_kube_ref ref;

	assert_int_equal(kube_parse_cgroup(path, &ref), 1);
	kube_logs_identify(logs, &ref, id);
}

static void test_identify(void **state)
{
	struct pts_kube_logs *logs = kube_logs_new(logs_dir);
	struct pts_kube_id id;
	char buf[512];

	(void)state;
	assert_non_null(logs);
	identify(logs, "/kubepods/burstable/pod" UID "/" CID, &id);
	assert_true(id.named);
	assert_string_equal(kube_label(buf, sizeof(buf), &id), "shop/cart-1/app");
	/* the pod's own cgroup: its pod entry */
	identify(logs, "/kubepods/burstable/pod" UID, &id);
	assert_true(id.named);
	assert_string_equal(kube_label(buf, sizeof(buf), &id), "shop/cart-1");
	/* a container the logs do not list (the sandbox): its id */
	identify(logs, "/kubepods/burstable/pod" UID "/" CID2, &id);
	assert_false(id.named);
	assert_string_equal(kube_label(buf, sizeof(buf), &id),
			    "shop/cart-1/" CID2);
	/* no entry at all: the UID, not a guess */
	identify(logs, "/kubepods/podffffffff-5f60-4a1b-9c2d-3e4f5a6b7c8d/" CID2,
		 &id);
	assert_false(id.named);
	assert_string_equal(id.names.ns, "");
	assert_string_equal(id.names.pod, "ffffffff-5f60-4a1b-9c2d-3e4f5a6b7c8d");
	assert_string_equal(kube_label(buf, sizeof(buf), &id),
			    "?/ffffffff-5f60-4a1b-9c2d-3e4f5a6b7c8d/" CID2);
	/* the same id again: what is in @id is asked again in place */
	kube_logs_identify(logs, &id.ref, &id);
	assert_string_equal(id.ref.container_id, CID2);
	kube_logs_free(logs);
}

/* missing directories: the UID and id, the run goes on */
static void test_no_logs(void **state)
{
	struct pts_kube_logs *logs = kube_logs_new("/nonexistent/ptscope");
	struct pts_kube_id id;

	(void)state;
	assert_non_null(logs);
	identify(logs, "/kubepods/pod" UID "/" CID, &id);
	assert_false(id.named);
	assert_string_equal(id.names.pod, UID);
	assert_string_equal(id.names.container, CID);
	identify(logs, "/kubepods/pod" UID, &id);
	assert_string_equal(id.names.container, "");
	kube_logs_free(logs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd),
		cmocka_unit_test(test_cgroupfs),
		cmocka_unit_test(test_not_pods),
		cmocka_unit_test(test_log_names),
		cmocka_unit_test_setup_teardown(test_identify, setup_logs,
						teardown_logs),
		cmocka_unit_test(test_no_logs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
