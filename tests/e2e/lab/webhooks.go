package lab

import (
	"context"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// WebhookRemover stands in for the webhook servers of the charts' controllers, which never run
// here: kwok runs no container, and no pod IP or Service IP of this cluster is reachable. The
// Provisioner era's chart (and v0.32's) installs admission webhooks with failurePolicy Fail that
// the controller pod serves; with them in place the API server would refuse every Provisioner and
// AWSNodeTemplate. So every admission webhook configuration that calls a Service is deleted as
// soon as it appears (a tenth of a second: long before Helm's wait for the controller's pods ends
// and the component creates its custom resources), and recorded: their Go-side defaulting and
// validation are not exercised (the CRD schemas are). The v1 charts install none.
type WebhookRemover struct {
	mu      sync.Mutex
	removed []string // Kind/name, in order
	done    chan struct{}
}

var webhookConfigurations = map[string]schema.GroupVersionResource{
	"ValidatingWebhookConfiguration": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
	"MutatingWebhookConfiguration":   {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
}

// startWebhookRemover polls the API server every 100 ms until ctx ends.
func startWebhookRemover(ctx context.Context, cfg *rest.Config) *WebhookRemover {
	r := &WebhookRemover{done: make(chan struct{})}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		panic(err) // only a malformed config; NewWorld built it
	}
	go func() {
		defer close(r.done)
		for {
			for kind, gvr := range webhookConfigurations {
				list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
				if err != nil {
					continue // the API server is starting or stopping; the next poll retries
				}
				for _, item := range list.Items {
					if !callsService(item) {
						continue
					}
					err := dyn.Resource(gvr).Delete(ctx, item.GetName(), metav1.DeleteOptions{})
					if err == nil {
						r.mu.Lock()
						r.removed = append(r.removed, kind+"/"+item.GetName())
						r.mu.Unlock()
					}
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return r
}

// callsService: one of the configuration's webhooks is served by a Service of the cluster.
func callsService(obj unstructured.Unstructured) bool {
	hooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
	for _, h := range hooks {
		if svc, _, _ := unstructured.NestedMap(h.(map[string]any), "clientConfig", "service"); svc != nil {
			return true
		}
	}
	return false
}

// Removed lists the webhook configurations removed so far (Kind/name), sorted and without
// repeats (an upgrade reinstalls them).
func (r *WebhookRemover) Removed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.removed)
	slices.Sort(out)
	return slices.Compact(out)
}
