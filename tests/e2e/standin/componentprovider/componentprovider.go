// Package componentprovider is what the lab's component stand-ins share
// (tests/e2e/standin/eks-component-provider, tests/e2e/standin/awsx-component-provider): the
// resource-provider protocol of a plugin that constructs one component type with the Go SDK's
// provider machinery (github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider) and has no provider
// configuration, and the helpers both use to read inputs as the real Node.js components read them.
package componentprovider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Plugin is one component stand-in: the package it stands in for and the one type it constructs.
// A is what Parse makes of the Construct's inputs (its String is logged).
type Plugin[A fmt.Stringer] struct {
	Name string // the package's name: "eks"
	// Versions are the versions of the package it can answer as, the default first: {"4.3.0",
	// "3.9.1"}. It answers as one of them (SelectVersion), and is never run as another.
	Versions []string
	Type     string // the type it constructs: "eks:index:Cluster"
	Schema   func() (string, error)
	// Parse checks the Construct's inputs (unknowns, secrets, resources and output values kept); its
	// error fails the Construct before anything is registered.
	Parse func(resource.PropertyMap) (A, error)
	// Construct registers the component and its children through the engine.
	Construct func(ctx *pulumi.Context, name string, args A, inputs pprovider.ConstructInputs, options pulumi.ResourceOption) (*pprovider.ConstructResult, error)
	// Use makes the stand-in's own code answer as version (one of Versions): its table of what
	// differs between them. SetVersion calls it.
	Use func(version string)

	version string
}

// StandIn is how the stand-in for pulumi-<name> <version> names itself: "stand-in for pulumi-eks
// 4.3.0 (test only)".
func StandIn(name, version string) string {
	return "stand-in for pulumi-" + name + " " + version + " (test only)"
}

// Releases wires a stand-in's table of what differs between the versions it answers as (rows, one
// per version, which version names, the default first) to its Plugin: versions are its Versions,
// and use, its Use, makes *current the row of the version and *standIn its name (StandIn).
func Releases[R any](name string, rows []R, version func(R) string, current *R, standIn *string) (versions []string, use func(string)) {
	for _, r := range rows {
		versions = append(versions, version(r))
	}
	return versions, func(v string) {
		for _, r := range rows {
			if version(r) == v {
				*current, *standIn = r, StandIn(name, v)
			}
		}
	}
}

// Version is the version it answers as: Versions[0] until SetVersion.
func (p *Plugin[A]) Version() string {
	if p.version == "" {
		return p.Versions[0]
	}
	return p.version
}

// StandIn is how it names itself, with the version it answers as.
func (p *Plugin[A]) StandIn() string { return StandIn(p.Name, p.Version()) }

// SetVersion makes it answer as v (GetPluginInfo, --version, its name, Use); any version but its
// Versions is refused.
func (p *Plugin[A]) SetVersion(v string) error {
	if !slices.Contains(p.Versions, v) {
		return fmt.Errorf("%s %s: %s", p.Name, v, p.answersOnly())
	}
	p.version = v
	if p.Use != nil {
		p.Use(v)
	}
	return nil
}

// SelectVersion sets the version to answer as (SetVersion): $STANDIN_<NAME>_VERSION if set, else
// the version of the plugin directory exe runs from (`pulumi plugin install resource <name>
// <version> --file ...` puts the binary in $PULUMI_HOME/plugins/resource-<name>-v<version>/, where
// the engine runs it), else Versions[0] (a binary run from where it was built). A version it cannot
// answer as is refused, naming where it came from, so that it never pretends to be one.
func (p *Plugin[A]) SelectVersion(exe string) error {
	env := "STANDIN_" + strings.ToUpper(p.Name) + "_VERSION"
	v, from := os.Getenv(env), env
	if v == "" && exe != "" {
		dir := regexp.MustCompile(`^resource-` + regexp.QuoteMeta(p.Name) + `-v(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)$`)
		if m := dir.FindStringSubmatch(filepath.Base(filepath.Dir(exe))); m != nil {
			v, from = m[1], "its plugin directory "+filepath.Dir(exe)
		}
	}
	if v == "" {
		v = p.Versions[0]
	}
	if !slices.Contains(p.Versions, v) {
		return fmt.Errorf("installed as %s %s (%s): %s", p.Name, v, from, p.answersOnly())
	}
	return p.SetVersion(v)
}

func (p *Plugin[A]) answersOnly() string {
	return fmt.Sprintf("the stand-in for pulumi-%s answers only as %s", p.Name, strings.Join(p.Versions, " or "))
}

// Logf writes one line to stderr (the engine keeps plugin stderr in its logs), naming the plugin
// as the stand-in.
func (p *Plugin[A]) Logf(format string, args ...any) { Logf(p.Name, p.StandIn(), format, args...) }

// Logf writes one line of the stand-in plugin name to stderr.
func Logf(name, standIn, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pulumi-resource-%s (%s): %s\n", name, standIn, fmt.Sprintf(format, args...))
}

// Main selects the version to answer as (SelectVersion; a refused one exits at once, naming it),
// then serves the plugin (or answers --version) and exits on failure.
func (p *Plugin[A]) Main() {
	exe, _ := os.Executable()
	if err := p.SelectVersion(exe); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-resource-%s: %v\n", p.Name, err)
		os.Exit(1)
	}
	for _, a := range os.Args[1:] {
		if a == "--version" || a == "-version" {
			fmt.Println(p.Version())
			fmt.Fprintf(os.Stderr, "pulumi-resource-%s: %s\n", p.Name, p.StandIn())
			return
		}
	}
	err := pprovider.Main(p.Name, func(host *pprovider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return p.Server(host), nil
	})
	if err != nil {
		p.Logf("%v", err)
		os.Exit(1)
	}
}

// Server is the plugin's resource-provider server, attached to host (nil until Attach).
func (p *Plugin[A]) Server(host *pprovider.HostClient) pulumirpc.ResourceProviderServer {
	return &server[A]{plugin: p, host: host}
}

type server[A fmt.Stringer] struct {
	pulumirpc.UnimplementedResourceProviderServer
	plugin *Plugin[A]

	mu   sync.Mutex
	host *pprovider.HostClient
}

// GetPluginInfo answers the version with "+standin": the same version to the engine (semver
// ignores build metadata), marked as the stand-in wherever the engine records it.
func (s *server[A]) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: s.plugin.Version() + "+standin"}, nil
}

func (s *server[A]) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	schema, err := s.plugin.Schema()
	return &pulumirpc.GetSchemaResponse{Schema: schema}, err
}

func (s *server[A]) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (s *server[A]) DiffConfig(context.Context, *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
}

// Configure: like the real Node.js component providers, the stand-in takes secrets, resource
// references and output values (inputs with their dependencies).
func (s *server[A]) Configure(context.Context, *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	return &pulumirpc.ConfigureResponse{AcceptSecrets: true, AcceptResources: true, AcceptOutputs: true, SupportsPreview: true}, nil
}

func (s *server[A]) Attach(_ context.Context, req *pulumirpc.PluginAttach) (*emptypb.Empty, error) {
	host, err := pprovider.NewHostClient(req.GetAddress())
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.host = host
	s.mu.Unlock()
	return &emptypb.Empty{}, nil
}

func (s *server[A]) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// Construct refuses any other type, checks the inputs (Parse) and constructs.
func (s *server[A]) Construct(ctx context.Context, req *pulumirpc.ConstructRequest) (*pulumirpc.ConstructResponse, error) {
	p := s.plugin
	if req.GetType() != p.Type {
		return nil, fmt.Errorf("%s %s: the %s constructs only %s", req.GetType(), req.GetName(), p.StandIn(), p.Type)
	}
	raw, err := plugin.UnmarshalProperties(req.GetInputs(), plugin.MarshalOptions{
		KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true,
	})
	if err != nil {
		return nil, err
	}
	args, err := p.Parse(raw)
	if err != nil {
		p.Logf("Construct %s %s refused: %v", p.Type, req.GetName(), err)
		return nil, err
	}
	s.mu.Lock()
	host := s.host
	s.mu.Unlock()
	p.Logf("Construct %s %s (preview %v): %s", p.Type, req.GetName(), req.GetDryRun(), args)
	return pprovider.Construct(ctx, req, host.EngineConn(), func(pctx *pulumi.Context, _, name string,
		inputs pprovider.ConstructInputs, options pulumi.ResourceOption,
	) (*pprovider.ConstructResult, error) {
		return p.Construct(pctx, name, args, inputs, options)
	})
}

// PlainValue unwraps known output values and secrets; an unknown output is a computed value.
func PlainValue(v resource.PropertyValue) resource.PropertyValue {
	for {
		switch {
		case v.IsSecret():
			v = v.SecretValue().Element
		case v.IsOutput() && v.OutputValue().Known:
			v = v.OutputValue().Element
		case v.IsOutput():
			return resource.MakeComputed(resource.NewStringProperty(""))
		default:
			return v
		}
	}
}

// InputOr is the input key, or an empty map when it is absent (JavaScript spreads undefined as
// nothing).
func InputOr(in pulumi.Map, key string) pulumi.Input {
	if v, ok := in[key]; ok {
		return v
	}
	return pulumi.StringMap{}
}

// StringMapOf is a tag map input's value once known; typ and input name it in errors.
func StringMapOf(typ, input string, v any) (map[string]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case map[string]string:
		return v, nil
	case map[string]any:
		out := make(map[string]string, len(v))
		for k, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s input %q: tag %q is a %T, not a string", typ, input, k, e)
			}
			out[k] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s input %q is a %T, not a map of strings", typ, input, v)
}

// MergeTags is JavaScript's object spread, by which the Node.js components write tags: a later
// layer's key wins.
func MergeTags(layers ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, l := range layers {
		maps.Copy(out, l)
	}
	return out
}
