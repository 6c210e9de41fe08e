package provider

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

// render runs the provider the way the Pulumi engine does — a gRPC Construct whose resource
// monitor is served here — so what it reports is what `pulumi up` would register. The monitor
// answers registrations, reads and invokes from mocks instead of clouds.

// registration is one resource the component registered (or read).
type registration struct {
	typ, name, parent string
	custom            bool
	readID            string // set for a read of an existing object
	deps              []string
	inputs            presource.PropertyMap
	aliases           []string
	retainOnDelete    bool
}

// renderHost is the in-process engine: an engine service, a resource monitor and the
// provider's gRPC server, started once and able to run many constructs.
type renderHost struct {
	cancel                  context.CancelFunc
	engineAddr, monitorAddr string
	monitor                 *renderMonitor
	engine                  *renderEngine
	host                    *comProvider.HostClient
	server                  pulumirpc.ResourceProviderServer
}

func startRenderHost(ctx context.Context, mocks *renderMocks, project, stack string) (*renderHost, error) {
	ctx, cancel := context.WithCancel(ctx)
	h := &renderHost{cancel: cancel, engine: &renderEngine{}, monitor: &renderMonitor{mocks: mocks, project: project, stack: stack, registered: map[string]*registration{}}}
	var err error
	if h.engineAddr, err = serve(ctx, func(s *grpc.Server) { pulumirpc.RegisterEngineServer(s, h.engine) }); err != nil {
		h.close()
		return nil, err
	}
	if h.monitorAddr, err = serve(ctx, func(s *grpc.Server) { pulumirpc.RegisterResourceMonitorServer(s, h.monitor) }); err != nil {
		h.close()
		return nil, err
	}
	if h.host, err = comProvider.NewHostClient(h.engineAddr); err != nil {
		h.close()
		return nil, err
	}
	prov, err := Provider()
	if err == nil {
		h.server, err = p.RawServer(Name, Version, prov)(h.host)
	}
	if err == nil {
		_, err = h.server.Configure(ctx, &pulumirpc.ConfigureRequest{AcceptSecrets: true, AcceptResources: true})
	}
	if err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

func (h *renderHost) close() {
	if h.host != nil {
		_ = h.host.Close()
	}
	h.cancel()
}

// construct runs the component and returns its outputs and what it registered, by
// "type::name".
func (h *renderHost) construct(ctx context.Context, args RenderArgs) (presource.PropertyMap, map[string]*registration, error) {
	inputs, err := plugin.MarshalProperties(presource.ToResourcePropertyMap(args.Inputs), plugin.MarshalOptions{
		KeepSecrets: true, KeepResources: true, KeepOutputValues: true,
	})
	if err != nil {
		return nil, nil, err
	}
	resp, err := h.server.Construct(ctx, &pulumirpc.ConstructRequest{
		Project:             args.Project,
		Stack:               args.Stack,
		Type:                args.componentType(),
		Name:                args.Name,
		Inputs:              inputs,
		Providers:           args.providers,
		Config:              args.config,
		MonitorEndpoint:     h.monitorAddr,
		DryRun:              args.preview,
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
func construct(ctx context.Context, args RenderArgs, mocks *renderMocks) (presource.PropertyMap, map[string]*registration, error) {
	if args.cluster != nil {
		mocks.cluster = args.cluster
	}
	h, err := startRenderHost(ctx, mocks, args.Project, args.Stack)
	if err != nil {
		return nil, nil, err
	}
	defer h.close()
	return h.construct(ctx, args)
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

// renderEngine is the engine side a provider logs to. It keeps what was logged, for tests.
// Render does not print it: render passes no providers, so the component always warns about
// default providers that render (all mocks) never creates.
type renderEngine struct {
	pulumirpc.UnimplementedEngineServer
	mu   sync.Mutex
	root string
	logs []*pulumirpc.LogRequest
}

func (e *renderEngine) Log(_ context.Context, req *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, req)
	return &emptypb.Empty{}, nil
}

func (e *renderEngine) GetRootResource(context.Context, *pulumirpc.GetRootResourceRequest) (*pulumirpc.GetRootResourceResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return &pulumirpc.GetRootResourceResponse{Urn: e.root}, nil
}

func (e *renderEngine) SetRootResource(_ context.Context, req *pulumirpc.SetRootResourceRequest) (*pulumirpc.SetRootResourceResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.root = req.GetUrn()
	return &pulumirpc.SetRootResourceResponse{}, nil
}

// renderMonitor is the resource monitor the component registers its children with.
type renderMonitor struct {
	pulumirpc.UnimplementedResourceMonitorServer
	mocks          *renderMocks
	project, stack string

	mu         sync.Mutex
	registered map[string]*registration
	// log is every registration and read, in the order answered: registered keeps the last of
	// each "type::name", log keeps them all (many components of one name, or a name reused).
	log []*registration
}

var unmarshalOptions = plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, KeepOutputValues: true, KeepResources: true}
var marshalOptions = plugin.MarshalOptions{KeepSecrets: true, KeepResources: true, KeepUnknowns: true}

// supported are the monitor features the Go SDK asks about that render implements.
var supported = map[string]bool{"secrets": true, "resourceReferences": true, "outputValues": true, "deletedWith": true, "aliasSpecs": true}

func (m *renderMonitor) SupportsFeature(_ context.Context, req *pulumirpc.SupportsFeatureRequest) (*pulumirpc.SupportsFeatureResponse, error) {
	return &pulumirpc.SupportsFeatureResponse{HasSupport: supported[req.GetId()]}, nil
}

func (m *renderMonitor) RegisterResourceOutputs(context.Context, *pulumirpc.RegisterResourceOutputsRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (m *renderMonitor) Invoke(_ context.Context, req *pulumirpc.ResourceInvokeRequest) (*pulumirpc.ResourceInvokeResponse, error) {
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

func (m *renderMonitor) urn(parent, typ, name string) string {
	parentType := tokens.Type("")
	if u := presource.URN(parent); u != "" && u.QualifiedType() != presource.RootStackType {
		parentType = u.QualifiedType()
	}
	return string(presource.NewURN(tokens.QName(m.stack), tokens.PackageName(m.project), parentType, tokens.Type(typ), name))
}

func (m *renderMonitor) RegisterResource(_ context.Context, req *pulumirpc.RegisterResourceRequest) (*pulumirpc.RegisterResourceResponse, error) {
	if req.GetType() == string(presource.RootStackType) {
		return &pulumirpc.RegisterResourceResponse{Urn: m.urn("", req.GetType(), req.GetName())}, nil
	}
	inputs, err := plugin.UnmarshalProperties(req.GetObject(), unmarshalOptions)
	if err != nil {
		return nil, err
	}
	reg := &registration{
		typ: req.GetType(), name: req.GetName(), parent: req.GetParent(), custom: req.GetCustom(),
		deps: req.GetDependencies(), inputs: inputs, retainOnDelete: req.GetRetainOnDelete(),
	}
	for _, a := range req.GetAliases() {
		if t := a.GetSpec().GetType(); t != "" {
			reg.aliases = append(reg.aliases, t)
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

func (m *renderMonitor) ReadResource(_ context.Context, req *pulumirpc.ReadResourceRequest) (*pulumirpc.ReadResourceResponse, error) {
	reg := &registration{typ: req.GetType(), name: req.GetName(), parent: req.GetParent(), custom: true, readID: req.GetId(), deps: req.GetDependencies()}
	state, err := m.mocks.read(reg)
	if err != nil {
		return nil, err
	}
	reg.inputs = presource.PropertyMap{}
	m.record(reg)
	object, err := plugin.MarshalProperties(state, marshalOptions)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.ReadResourceResponse{Urn: m.urn(req.GetParent(), req.GetType(), req.GetName()), Properties: object}, nil
}

func (m *renderMonitor) record(reg *registration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.registered[reg.typ+"::"+reg.name] = reg
	m.log = append(m.log, reg)
}

// recorded is every registration and read so far, in the order answered.
func (m *renderMonitor) recorded() []*registration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.log)
}

func (m *renderMonitor) snapshot() map[string]*registration {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]*registration, len(m.registered))
	for k, v := range m.registered {
		out[k] = v
	}
	return out
}
