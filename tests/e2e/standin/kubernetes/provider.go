package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/diag"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// standIn implements the provider protocol. Configure connects it to one cluster.
type standIn struct {
	pulumirpc.UnimplementedResourceProviderServer
	host *provider.HostClient // nil when started without an engine (attach mode, the tests)

	mu            sync.Mutex
	cluster       *harness.Cluster
	server        string // the API server's URL, for messages
	acceptSecrets bool

	// helmMu runs one Helm operation at a time (the engine runs independent steps in
	// parallel; the harness's Helm code keeps per-cluster bookkeeping without locks).
	helmMu sync.Mutex
}

func newStandIn(host *provider.HostClient) *standIn { return &standIn{host: host} }

// Provider configuration keys the stand-in implements. Other pulumi-kubernetes settings
// (context, cluster, namespace, enableServerSideApply, renderYamlToDirectory, …) would change
// behaviour the stand-in does not have, so they are refused rather than ignored. version and
// pluginDownloadURL are the engine's own.
var configKeys = map[string]bool{"kubeconfig": true, "version": true, "pluginDownloadURL": true}

func (s *standIn) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: pluginInfoVersion}, nil
}

// GetSchema answers with a package named kubernetes and no resources: the engine needs no
// schema for resources a component registers by type token.
func (s *standIn) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	return &pulumirpc.GetSchemaResponse{Schema: fmt.Sprintf(`{"name":"kubernetes","version":%q,"description":%q}`, Version, StandIn)}, nil
}

func (s *standIn) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	var failures []*pulumirpc.CheckFailure
	for k := range req.GetNews().GetFields() {
		if !configKeys[k] && !strings.HasPrefix(k, "__") {
			failures = append(failures, &pulumirpc.CheckFailure{Property: k,
				Reason: fmt.Sprintf("provider config kubernetes:%s is not implemented by the %s (only kubeconfig)", k, StandIn)})
		}
	}
	return &pulumirpc.CheckResponse{Inputs: req.GetNews(), Failures: failures}, nil
}

// DiffConfig: a changed kubeconfig is an update of the provider, never a replacement of
// everything it manages (the stand-in has no notion of cluster identity).
func (s *standIn) DiffConfig(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	olds := req.GetOldInputs()
	if olds == nil {
		olds = req.GetOlds()
	}
	o, err := unmarshal(olds)
	if err != nil {
		return nil, err
	}
	n, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}
	if ov, nv := unsecret(o["kubeconfig"]), unsecret(n["kubeconfig"]); isUnknown(nv) || !ov.DeepEquals(nv) {
		resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
		resp.Diffs = []string{"kubeconfig"}
	}
	return resp, nil
}

func (s *standIn) Configure(_ context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	args, err := plugin.UnmarshalProperties(req.GetArgs(), plugin.MarshalOptions{KeepUnknowns: true, SkipNulls: true})
	if err != nil {
		return nil, err
	}
	for k := range args {
		if !configKeys[string(k)] && !strings.HasPrefix(string(k), "__") {
			return nil, fmt.Errorf("%s: provider config kubernetes:%s is not implemented (only kubeconfig)", StandIn, k)
		}
	}
	var kubeconfig, source string
	if v, ok := args["kubeconfig"]; ok {
		if v.ContainsUnknowns() {
			return nil, fmt.Errorf("%s: provider config kubernetes:kubeconfig is unknown; the stand-in needs a known cluster", StandIn)
		}
		if !v.IsString() {
			return nil, fmt.Errorf("%s: provider config kubernetes:kubeconfig is %s, want a string", StandIn, v.TypeString())
		}
		kubeconfig, source = v.StringValue(), "provider config kubernetes:kubeconfig"
	} else if v := req.GetVariables()["kubernetes:config:kubeconfig"]; v != "" {
		kubeconfig, source = v, "provider config kubernetes:kubeconfig"
	}
	var data []byte
	switch {
	case kubeconfig != "":
		// Like pulumi-kubernetes: the contents of a kubeconfig, or a path to one.
		data = []byte(kubeconfig)
		if !strings.ContainsAny(kubeconfig, "\n{") {
			if b, rerr := os.ReadFile(kubeconfig); rerr == nil {
				data, source = b, source+" (path "+kubeconfig+")"
			}
		}
	case os.Getenv("KUBECONFIG") != "":
		rules := &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(os.Getenv("KUBECONFIG"))}
		cfg, lerr := rules.Load()
		if lerr != nil {
			return nil, fmt.Errorf("%s: KUBECONFIG=%s: %w", StandIn, os.Getenv("KUBECONFIG"), lerr)
		}
		if len(cfg.Clusters) == 0 {
			// e.g. KUBECONFIG=/dev/null, which the e2e engine helper sets so nothing reaches a
			// real cluster by accident.
			return nil, fmt.Errorf("%s: no cluster: provider config kubernetes:kubeconfig is not set and KUBECONFIG=%s holds no cluster",
				StandIn, os.Getenv("KUBECONFIG"))
		}
		if data, err = clientcmd.Write(*cfg); err != nil {
			return nil, err
		}
		source = "env KUBECONFIG=" + os.Getenv("KUBECONFIG")
	default:
		return nil, fmt.Errorf("%s: no cluster: set provider config kubernetes:kubeconfig (a kubeconfig) or env KUBECONFIG (a path); "+
			"the stand-in only talks to the API server a test starts", StandIn)
	}
	restCfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", StandIn, source, err)
	}
	cluster, err := harness.NewClusterForConfig(restCfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", StandIn, source, err)
	}
	s.mu.Lock()
	s.cluster, s.server, s.acceptSecrets = cluster, restCfg.Host, req.GetAcceptSecrets()
	s.mu.Unlock()
	logf("configured: API server %s from %s", restCfg.Host, source)
	return &pulumirpc.ConfigureResponse{AcceptSecrets: true, SupportsPreview: true}, nil
}

func (s *standIn) clusterFor(op string) (*harness.Cluster, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cluster == nil {
		return nil, fmt.Errorf("%s: %s before Configure", StandIn, op)
	}
	return s.cluster, nil
}

func (s *standIn) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// info logs a line to stderr and, when run by the engine, to the engine's debug stream.
func (s *standIn) info(ctx context.Context, urn resource.URN, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	logf("%s", msg)
	if s.host != nil {
		_ = s.host.Log(ctx, diag.Debug, urn, StandIn+": "+msg)
	}
}

// ---- property helpers

func unmarshal(st *structpb.Struct) (resource.PropertyMap, error) {
	return plugin.UnmarshalProperties(st, plugin.MarshalOptions{KeepUnknowns: true, SkipNulls: true, KeepSecrets: true})
}

func (s *standIn) marshal(pm resource.PropertyMap) (*structpb.Struct, error) {
	s.mu.Lock()
	keep := s.acceptSecrets
	s.mu.Unlock()
	return plugin.MarshalProperties(pm, plugin.MarshalOptions{KeepUnknowns: true, SkipNulls: true, KeepSecrets: keep})
}

// plain converts known inputs to JSON-like Go values (secrets unwrapped) for the cluster.
func plain(pm resource.PropertyMap) (map[string]any, error) {
	if pm.ContainsUnknowns() {
		return nil, errors.New("inputs hold unknown values outside a preview")
	}
	var unwrap func(resource.PropertyValue) (any, bool)
	unwrap = func(v resource.PropertyValue) (any, bool) {
		switch {
		case v.IsSecret():
			return v.SecretValue().Element.MapRepl(nil, unwrap), true
		case v.IsOutput():
			return v.OutputValue().Element.MapRepl(nil, unwrap), true
		}
		return nil, false
	}
	return pm.MapRepl(nil, unwrap), nil
}

// keepSecrets marks outputs secret where the inputs at the same path were.
func keepSecrets(out, in resource.PropertyMap) {
	for k, iv := range in {
		ov, ok := out[k]
		if !ok {
			continue
		}
		switch {
		case iv.IsSecret() && !ov.IsSecret():
			out[k] = resource.MakeSecret(ov)
		case iv.IsObject() && ov.IsObject():
			keepSecrets(ov.ObjectValue(), iv.ObjectValue())
		}
	}
}

func computed() resource.PropertyValue { return resource.MakeComputed(resource.NewStringProperty("")) }

func str(pm resource.PropertyMap, k resource.PropertyKey) string {
	if v := unsecret(pm[k]); v.IsString() {
		return v.StringValue()
	}
	return ""
}

func timeoutOr(seconds float64, def time.Duration) time.Duration {
	if seconds > 0 {
		return time.Duration(seconds * float64(time.Second))
	}
	return def
}

// ---- the resource lifecycle: dispatch by type

func (s *standIn) Check(ctx context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	urn := resource.URN(req.GetUrn())
	t, err := parseType(string(urn.Type()))
	if err != nil {
		return nil, err
	}
	if err := t.supported(); err != nil {
		return &pulumirpc.CheckResponse{Inputs: req.GetNews(), Failures: []*pulumirpc.CheckFailure{{Reason: err.Error()}}}, nil
	}
	olds, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	var failures []*pulumirpc.CheckFailure
	if t.Release {
		failures, err = checkRelease(urn.Name(), req.GetRandomSeed(), olds, news)
	} else {
		failures, err = checkObject(t, urn.Name(), req.GetRandomSeed(), olds, news)
	}
	if err != nil {
		return nil, err
	}
	inputs, err := s.marshal(news)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CheckResponse{Inputs: inputs, Failures: failures}, nil
}

func (s *standIn) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	urn := resource.URN(req.GetUrn())
	t, err := parseType(string(urn.Type()))
	if err != nil {
		return nil, err
	}
	if req.GetOldInputs() == nil {
		return nil, fmt.Errorf("%s: Diff(%s) without old inputs; the stand-in diffs inputs and needs an engine that sends them", StandIn, urn)
	}
	olds, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	if !t.Release {
		olds, news = canonicalNamespace(olds), canonicalNamespace(news)
	}
	return diffResponse(t, olds, news, req.GetIgnoreChanges())
}

// canonicalNamespace drops metadata.namespace "default". pulumi-kubernetes' Diff sets an unset
// namespace to "default" for namespaced kinds and clears it for cluster-scoped ones, asking the
// cluster for the scope; the stand-in's Diff stays offline and treats "default" and no
// namespace alike (the same answer for namespaced kinds; for a cluster-scoped kind
// pulumi-kubernetes would ignore any other namespace too, which the component never sets).
func canonicalNamespace(pm resource.PropertyMap) resource.PropertyMap {
	md := pm["metadata"]
	if !md.IsObject() {
		return pm
	}
	if ns := md.ObjectValue()["namespace"]; !ns.IsString() || ns.StringValue() != "default" {
		return pm
	}
	out, m := pm.Copy(), md.ObjectValue().Copy()
	delete(m, "namespace")
	out["metadata"] = resource.NewObjectProperty(m)
	return out
}

func (s *standIn) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	urn := resource.URN(req.GetUrn())
	t, err := parseType(string(urn.Type()))
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	if req.GetPreview() {
		// Never touches the cluster: the inputs and unknown computed fields.
		props, err := s.marshal(previewOutputs(t, news, nil))
		return &pulumirpc.CreateResponse{Properties: props}, err
	}
	cluster, err := s.clusterFor("Create")
	if err != nil {
		return nil, err
	}
	var id string
	var outs resource.PropertyMap
	switch {
	case t.Release:
		id, outs, err = s.createRelease(ctx, cluster, urn, news)
	default:
		id, outs, err = s.applyObject(ctx, cluster, t, urn, news, true)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: create %s: %w", StandIn, urn.Name(), err)
	}
	recordOp("Create", string(urn.Type()), urn.Name(), id)
	s.info(ctx, urn, "created %s %s", urn.Type(), id)
	props, err := s.marshal(outs)
	return &pulumirpc.CreateResponse{Id: id, Properties: props}, err
}

func (s *standIn) Update(ctx context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	urn := resource.URN(req.GetUrn())
	t, err := parseType(string(urn.Type()))
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	olds, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	if req.GetPreview() {
		props, err := s.marshal(previewOutputs(t, news, olds))
		return &pulumirpc.UpdateResponse{Properties: props}, err
	}
	cluster, err := s.clusterFor("Update")
	if err != nil {
		return nil, err
	}
	var outs resource.PropertyMap
	switch {
	case t.Release:
		outs, err = s.upgradeRelease(ctx, cluster, urn, news)
	default:
		_, outs, err = s.applyObject(ctx, cluster, t, urn, news, false)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: update %s: %w", StandIn, urn.Name(), err)
	}
	recordOp("Update", string(urn.Type()), urn.Name(), req.GetId())
	s.info(ctx, urn, "updated %s %s", urn.Type(), req.GetId())
	props, err := s.marshal(outs)
	return &pulumirpc.UpdateResponse{Properties: props}, err
}

func (s *standIn) Delete(ctx context.Context, req *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	urn := resource.URN(req.GetUrn())
	t, err := parseType(string(urn.Type()))
	if err != nil {
		return nil, err
	}
	// The identity (name, namespace, apiVersion, kind) is in the inputs; the outputs hold it too.
	ins := req.GetOldInputs()
	if ins == nil || len(ins.GetFields()) == 0 {
		ins = req.GetProperties()
	}
	olds, err := unmarshal(ins)
	if err != nil {
		return nil, err
	}
	cluster, err := s.clusterFor("Delete")
	if err != nil {
		return nil, err
	}
	switch {
	case t.Release:
		err = s.deleteRelease(ctx, cluster, urn, olds, req.GetTimeout())
	case t.Patch:
		err = s.relinquishPatch(ctx, cluster, t, urn, olds)
	default:
		err = s.deleteObject(ctx, cluster, t, urn, olds, timeoutOr(req.GetTimeout(), defaultDeleteTimeout))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: delete %s: %w", StandIn, urn.Name(), err)
	}
	recordOp("Delete", string(urn.Type()), urn.Name(), req.GetId())
	s.info(ctx, urn, "deleted %s %s", urn.Type(), req.GetId())
	return &emptypb.Empty{}, nil
}

func (s *standIn) Read(ctx context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	urn := resource.URN(req.GetUrn())
	t, err := parseType(string(urn.Type()))
	if err != nil {
		return nil, err
	}
	olds, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	cluster, err := s.clusterFor("Read")
	if err != nil {
		return nil, err
	}
	var id string
	var outs resource.PropertyMap
	if t.Release {
		id, outs, err = s.readRelease(ctx, cluster, req.GetId(), olds)
	} else {
		id, outs, err = s.readObject(ctx, cluster, t, req.GetId())
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read %s %s: %w", StandIn, urn.Name(), req.GetId(), err)
	}
	recordOp("Read", string(urn.Type()), urn.Name(), id)
	if id == "" {
		s.info(ctx, urn, "read %s %s: not found", urn.Type(), req.GetId())
		return &pulumirpc.ReadResponse{}, nil
	}
	props, err := s.marshal(outs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.ReadResponse{Id: id, Properties: props, Inputs: req.GetInputs()}, nil
}

// previewOutputs is what a preview of a Create or Update returns: the inputs, with the fields
// the cluster computes unknown (on an update, the object's identity is kept from olds).
func previewOutputs(t typeInfo, news, olds resource.PropertyMap) resource.PropertyMap {
	out := news.Copy()
	if t.Release {
		out["status"] = computed()
		return out
	}
	if md := out["metadata"]; md.IsObject() {
		m := md.ObjectValue().Copy()
		for _, k := range []resource.PropertyKey{"uid", "resourceVersion", "creationTimestamp", "generation"} {
			m[k] = computed()
		}
		if omd := olds["metadata"]; omd.IsObject() {
			for _, k := range []resource.PropertyKey{"uid", "creationTimestamp"} {
				if v, ok := omd.ObjectValue()[k]; ok && !isUnknown(v) {
					if n, on := nameOf(news); n != "" {
						if o, oo := nameOf(olds); o == n && oo == on {
							m[k] = v
						}
					}
				}
			}
		}
		out["metadata"] = resource.NewObjectProperty(m)
	}
	if !t.Patch && !(t.GVK.Group == "" && t.GVK.Kind == "ConfigMap") {
		out["status"] = computed()
	}
	return out
}
