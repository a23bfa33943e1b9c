package volume

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// ReadWriteOncePodConflicts returns, in the order of pending, an *Error for each pod that
// cannot run because a ReadWriteOncePod claim it uses is taken: by a bound pod (one of the
// index's boundPods), or by an earlier pod of pending, which keeps it. A pod is reported once,
// for its first conflicting claim by key. Claims that cannot be resolved are left to ForPod.
func (ix *Index) ReadWriteOncePodConflicts(pending []*corev1.Pod) []*Error {
	var out []*Error
	taken := map[string]string{} // claim key → pending pod that keeps it
	for _, pod := range pending {
		if pod == nil {
			continue
		}
		ns := namespaceOf(pod)
		podKey := objectKey(ns, pod.Name)
		var keys []string
		for i := range pod.Spec.Volumes {
			v := &pod.Spec.Volumes[i]
			if v.PersistentVolumeClaim == nil {
				continue // an ephemeral claim belongs to its pod alone
			}
			key := objectKey(ns, v.PersistentVolumeClaim.ClaimName)
			if r := ix.resolved[key]; r != nil && r.claim.ReadWriteOncePod && !contains(keys, key) {
				keys = append(keys, key)
			}
		}
		sort.Strings(keys)
		var conflict *Error
		for _, key := range keys {
			if u, ok := ix.otherUser(key, podKey); ok {
				conflict = &Error{Pod: podKey, Claims: []string{key}, Reason: fmt.Sprintf(
					"persistentvolumeclaim %s is ReadWriteOncePod and already used by pod %s on node %s", key, u.pod, u.node)}
				break
			}
			if other, ok := taken[key]; ok && other != podKey {
				conflict = &Error{Pod: podKey, Claims: []string{key}, Reason: fmt.Sprintf(
					"persistentvolumeclaim %s is ReadWriteOncePod and pod %s, planned first, uses it", key, other)}
				break
			}
		}
		if conflict != nil {
			out = append(out, conflict)
			continue
		}
		for _, key := range keys {
			taken[key] = podKey
		}
	}
	return out
}

// otherUser returns a bound pod other than podKey using the claim.
func (ix *Index) otherUser(key, podKey string) (claimUser, bool) {
	for _, u := range ix.users[key] {
		if u.pod != podKey {
			return u, true
		}
	}
	return claimUser{}, false
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
