package render

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	p "github.com/pulumi/pulumi-go-provider"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	comProvider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// The in-process engine runs the provider the way the Pulumi engine does — a gRPC Construct
// whose resource monitor is served here — so what a render reports is what `pulumi up` would
// register. The monitor answers registrations, reads and invokes from mocks instead of clouds.

// Registration is one resource the component registered (or read), as the monitor received it.
type Registration struct {
	Type, Name     string
	Parent         string   // the parent's URN
	Custom         bool     // false for a component
	ReadID         string   // set for a read of an existing object
	Deps           []string // the dependencies' URNs
	Inputs         presource.PropertyMap
	Aliases        []string // earlier type tokens
	RetainOnDelete bool
	// ImportID is set for a child imported from what exists (adopt); IgnoreChanges are the
	// properties it keeps as they are.
	ImportID      string
	IgnoreChanges []string
}

// Host is the in-process engine: an engine service, a resource monitor and the provider's gRPC
// server, started once and able to run many constructs.
type Host struct {
	// EngineAddr and MonitorAddr are where the engine service and the resource monitor listen:
	// a Pulumi program run against them registers with the same mocks.
	EngineAddr, MonitorAddr string

	plugin  Plugin
	cancel  context.CancelFunc
	monitor *monitor
	engine  *engine
	host    *comProvider.HostClient
	server  pulumirpc.ResourceProviderServer
}

// Start starts the in-process engine with the plugin's provider, for constructs in project and
// stack answered by mocks. Close stops it.
func (pl Plugin) Start(ctx context.Context, mocks *Mocks, project, stack string) (*Host, error) {
	ctx, cancel := context.WithCancel(ctx)
	h := &Host{plugin: pl, cancel: cancel, engine: &engine{}, monitor: &monitor{mocks: mocks, project: project, stack: stack, registered: map[string]*Registration{}}}
	var err error
	if h.EngineAddr, err = serve(ctx, func(s *grpc.Server) { pulumirpc.RegisterEngineServer(s, h.engine) }); err != nil {
		h.Close()
		return nil, err
	}
	if h.MonitorAddr, err = serve(ctx, func(s *grpc.Server) { pulumirpc.RegisterResourceMonitorServer(s, h.monitor) }); err != nil {
		h.Close()
		return nil, err
	}
	if h.host, err = comProvider.NewHostClient(h.EngineAddr); err != nil {
		h.Close()
		return nil, err
	}
	prov, err := pl.New()
	if err == nil {
		h.server, err = p.RawServer(pl.Name, pl.Version, prov)(h.host)
	}
	if err == nil {
		_, err = h.server.Configure(ctx, &pulumirpc.ConfigureRequest{AcceptSecrets: true, AcceptResources: true})
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// Close stops the engine.
func (h *Host) Close() {
	if h.host != nil {
		_ = h.host.Close()
	}
	h.cancel()
}

// Construct runs the component and returns its outputs and what it registered, by
// "type::name".
func (h *Host) Construct(ctx context.Context, args Args) (presource.PropertyMap, map[string]*Registration, error) {
	inputs, err := plugin.MarshalProperties(presource.ToResourcePropertyMap(args.Inputs), plugin.MarshalOptions{
		KeepSecrets: true, KeepResources: true, KeepOutputValues: true,
	})
	if err != nil {
		return nil, nil, err
	}
	resp, err := h.server.Construct(ctx, &pulumirpc.ConstructRequest{
		Project:             args.Project,
		Stack:               args.Stack,
		Type:                h.plugin.componentType(args),
		Name:                args.Name,
		Inputs:              inputs,
		Providers:           args.Providers,
		Config:              args.Config,
		MonitorEndpoint:     h.MonitorAddr,
		DryRun:              args.Preview,
		Parallel:            16,
		AcceptsOutputValues: true,
	})
	if err != nil {
		return nil, h.monitor.snapshot(), cleanConstructError(err)
	}
	outputs, err := plugin.UnmarshalProperties(resp.GetState(), plugin.MarshalOptions{KeepSecrets: true, KeepResources: true, KeepUnknowns: true})
	return outputs, h.monitor.snapshot(), err
}

// construct runs the component once under a fresh in-process engine.
func (pl Plugin) construct(ctx context.Context, args Args, mocks *Mocks) (presource.PropertyMap, map[string]*Registration, error) {
	if args.Cluster != nil {
		mocks.Cluster = args.Cluster
	}
	h, err := pl.Start(ctx, mocks, args.Project, args.Stack)
	if err != nil {
		return nil, nil, err
	}
	defer h.Close()
	return h.Construct(ctx, args)
}

// serve starts a gRPC server on a free loopback port until ctx ends.
func serve(ctx context.Context, register func(*grpc.Server)) (string, error) {
	cancel := make(chan bool)
	go func() {
		<-ctx.Done()
		close(cancel)
	}()
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancel,
		Init: func(s *grpc.Server) error {
			register(s)
			return nil
		},
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("127.0.0.1:%d", handle.Port), nil
}

// cleanConstructError keeps the message that names the field and drops the gRPC wrapping.
func cleanConstructError(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, "desc = "); i >= 0 {
		msg = msg[i+len("desc = "):]
	}
	return fmt.Errorf("%s", msg)
}

// engine is the engine side a provider logs to. It keeps what was logged, for tests (Warnings).
// Render does not print it: render passes no providers, so the component always warns about
// default providers that render (all mocks) never creates.
type engine struct {
	pulumirpc.UnimplementedEngineServer
	mu   sync.Mutex
	root string
	logs []*pulumirpc.LogRequest
}

func (e *engine) Log(_ context.Context, req *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, req)
	return &emptypb.Empty{}, nil
}

func (e *engine) GetRootResource(context.Context, *pulumirpc.GetRootResourceRequest) (*pulumirpc.GetRootResourceResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return &pulumirpc.GetRootResourceResponse{Urn: e.root}, nil
}

func (e *engine) SetRootResource(_ context.Context, req *pulumirpc.SetRootResourceRequest) (*pulumirpc.SetRootResourceResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.root = req.GetUrn()
	return &pulumirpc.SetRootResourceResponse{}, nil
}

// monitor is the resource monitor the component registers its children with.
type monitor struct {
	pulumirpc.UnimplementedResourceMonitorServer
	mocks          *Mocks
	project, stack string

	mu         sync.Mutex
	registered map[string]*Registration
	// log is every registration and read, in the order answered: registered keeps the last of
	// each "type::name", log keeps them all (many components of one name, or a name reused).
	log []*Registration
}

var unmarshalOptions = plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, KeepOutputValues: true, KeepResources: true}
var marshalOptions = plugin.MarshalOptions{KeepSecrets: true, KeepResources: true, KeepUnknowns: true}

// supported are the monitor features the Go SDK asks about that render implements.
var supported = map[string]bool{"secrets": true, "resourceReferences": true, "outputValues": true, "deletedWith": true, "aliasSpecs": true}

func (m *monitor) SupportsFeature(_ context.Context, req *pulumirpc.SupportsFeatureRequest) (*pulumirpc.SupportsFeatureResponse, error) {
	return &pulumirpc.SupportsFeatureResponse{HasSupport: supported[req.GetId()]}, nil
}

func (m *monitor) RegisterResourceOutputs(context.Context, *pulumirpc.RegisterResourceOutputsRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (m *monitor) Invoke(_ context.Context, req *pulumirpc.ResourceInvokeRequest) (*pulumirpc.ResourceInvokeResponse, error) {
	args, err := plugin.UnmarshalProperties(req.GetArgs(), unmarshalOptions)
	if err != nil {
		return nil, err
	}
	m.mocks.recordInvoke(req.GetTok(), args)
	result, err := m.mocks.call(req.GetTok(), args)
	if err != nil {
		// Invoke failures are answered, not raised: the SDK reports them to the caller.
		return &pulumirpc.ResourceInvokeResponse{Failures: []*pulumirpc.CheckFailure{{Reason: err.Error()}}}, nil
	}
	out, err := plugin.MarshalProperties(result, marshalOptions)
	return &pulumirpc.ResourceInvokeResponse{Return: out}, err
}

func (m *monitor) urn(parent, typ, name string) string {
	parentType := tokens.Type("")
	if u := presource.URN(parent); u != "" && u.QualifiedType() != presource.RootStackType {
		parentType = u.QualifiedType()
	}
	return string(presource.NewURN(tokens.QName(m.stack), tokens.PackageName(m.project), parentType, tokens.Type(typ), name))
}

func (m *monitor) RegisterResource(_ context.Context, req *pulumirpc.RegisterResourceRequest) (*pulumirpc.RegisterResourceResponse, error) {
	if req.GetType() == string(presource.RootStackType) {
		return &pulumirpc.RegisterResourceResponse{Urn: m.urn("", req.GetType(), req.GetName())}, nil
	}
	inputs, err := plugin.UnmarshalProperties(req.GetObject(), unmarshalOptions)
	if err != nil {
		return nil, err
	}
	reg := &Registration{
		Type: req.GetType(), Name: req.GetName(), Parent: req.GetParent(), Custom: req.GetCustom(),
		Deps: req.GetDependencies(), Inputs: inputs, RetainOnDelete: req.GetRetainOnDelete(),
		ImportID: req.GetImportId(), IgnoreChanges: req.GetIgnoreChanges(),
	}
	for _, a := range req.GetAliases() {
		if t := a.GetSpec().GetType(); t != "" {
			reg.Aliases = append(reg.Aliases, t)
		}
	}
	id, state, err := m.mocks.newResource(reg)
	if err != nil {
		return nil, err
	}
	m.record(reg)
	object, err := plugin.MarshalProperties(state, marshalOptions)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.RegisterResourceResponse{Urn: m.urn(req.GetParent(), req.GetType(), req.GetName()), Id: id, Object: object}, nil
}

func (m *monitor) ReadResource(_ context.Context, req *pulumirpc.ReadResourceRequest) (*pulumirpc.ReadResourceResponse, error) {
	reg := &Registration{Type: req.GetType(), Name: req.GetName(), Parent: req.GetParent(), Custom: true, ReadID: req.GetId(), Deps: req.GetDependencies()}
	state, err := m.mocks.read(reg)
	if err != nil {
		return nil, err
	}
	reg.Inputs = presource.PropertyMap{}
	m.record(reg)
	object, err := plugin.MarshalProperties(state, marshalOptions)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.ReadResourceResponse{Urn: m.urn(req.GetParent(), req.GetType(), req.GetName()), Properties: object}, nil
}

func (m *monitor) record(reg *Registration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.registered[reg.Type+"::"+reg.Name] = reg
	m.log = append(m.log, reg)
}

// recorded is every registration and read so far, in the order answered.
func (m *monitor) recorded() []*Registration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.log)
}

func (m *monitor) snapshot() map[string]*Registration {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]*Registration, len(m.registered))
	for k, v := range m.registered {
		out[k] = v
	}
	return out
}

// Registrations are every registration and read the host's constructs made so far, in the
// order the monitor answered them (many components of one name, or a name reused, included).
func (h *Host) Registrations() []*Registration { return h.monitor.recorded() }

// Warnings are the warnings the host's constructs logged, in order.
func (h *Host) Warnings() []*pulumirpc.LogRequest {
	h.engine.mu.Lock()
	defer h.engine.mu.Unlock()
	var out []*pulumirpc.LogRequest
	for _, l := range h.engine.logs {
		if l.GetSeverity() == pulumirpc.LogSeverity_WARNING {
			out = append(out, l)
		}
	}
	return out
}
