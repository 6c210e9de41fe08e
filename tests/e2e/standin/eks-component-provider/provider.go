package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
)

// provider serves the resource provider protocol: the schema, configuration (none: pulumi-eks has
// no provider configuration the stand-in uses) and Construct of eks:index:Cluster.
type provider struct {
	pulumirpc.UnimplementedResourceProviderServer

	mu             sync.Mutex
	host           *pprovider.HostClient
	kubeconfigPath string
}

func (p *provider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: pluginInfoVersion}, nil
}

func (p *provider) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	s, err := schemaJSON()
	return &pulumirpc.GetSchemaResponse{Schema: s}, err
}

func (p *provider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (p *provider) DiffConfig(context.Context, *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
}

// Configure: pulumi-eks is a component provider; like its Node.js provider, the stand-in takes
// secrets, resource references and output values (inputs with their dependencies).
func (p *provider) Configure(context.Context, *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	return &pulumirpc.ConfigureResponse{AcceptSecrets: true, AcceptResources: true, AcceptOutputs: true, SupportsPreview: true}, nil
}

func (p *provider) Attach(_ context.Context, req *pulumirpc.PluginAttach) (*emptypb.Empty, error) {
	host, err := pprovider.NewHostClient(req.GetAddress())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.host = host
	p.mu.Unlock()
	return &emptypb.Empty{}, nil
}

func (p *provider) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// clusterType is the one resource the stand-in constructs.
const clusterType = "eks:index:Cluster"

func (p *provider) Construct(ctx context.Context, req *pulumirpc.ConstructRequest) (*pulumirpc.ConstructResponse, error) {
	if req.GetType() != clusterType {
		return nil, fmt.Errorf("%s %s: the %s constructs only %s", req.GetType(), req.GetName(), standIn, clusterType)
	}
	raw, err := plugin.UnmarshalProperties(req.GetInputs(), plugin.MarshalOptions{
		KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true,
	})
	if err != nil {
		return nil, err
	}
	args, err := parseArgs(raw)
	if err != nil {
		logf("Construct %s %s refused: %v", clusterType, req.GetName(), err)
		return nil, err
	}
	p.mu.Lock()
	host := p.host
	p.mu.Unlock()
	logf("Construct %s %s (preview %v): %s", clusterType, req.GetName(), req.GetDryRun(), args)
	return pprovider.Construct(ctx, req, host.EngineConn(), func(pctx *pulumi.Context, typ, name string,
		inputs pprovider.ConstructInputs, options pulumi.ResourceOption,
	) (*pprovider.ConstructResult, error) {
		return construct(pctx, name, args, inputs, options, p.kubeconfigPath)
	})
}

// The inputs the stand-in implements, as pulumi-eks 4.3.0 names them (sorted).
var implemented = []string{"accessEntries", "authenticationMode", "clusterSecurityGroupTags", "createOidcProvider", "name",
	"nodeSecurityGroupTags", "roleMappings", "version"}

var authenticationModes = []string{"CONFIG_MAP", "API_AND_CONFIG_MAP", "API"}

// clusterArgs are the inputs the construct decides by (name, version, the tag maps and
// roleMappings go to the resources as they are, outputs included).
type clusterArgs struct {
	createOIDCProvider bool
	authenticationMode string // "" when unset: pulumi-eks then treats the cluster as CONFIG_MAP
	// accessEntries are the names of the accessEntries and of each one's access policies: pulumi-eks
	// names a resource after each.
	accessEntries map[string][]string
}

func (a clusterArgs) String() string {
	mode := a.authenticationMode
	if mode == "" {
		mode = "unset (CONFIG_MAP)"
	}
	s := fmt.Sprintf("authenticationMode %s, createOidcProvider %v", mode, a.createOIDCProvider)
	for _, k := range slices.Sorted(maps.Keys(a.accessEntries)) {
		s += fmt.Sprintf(", access entry %s (access policies %v)", k, a.accessEntries[k])
	}
	return s
}

// supportsConfigMap and supportsAccessEntries are pulumi-eks's (cluster/authenticationMode.ts:102-113):
// an unset mode is CONFIG_MAP.
func (a clusterArgs) supportsConfigMap() bool {
	return a.authenticationMode == "" || a.authenticationMode == "CONFIG_MAP" || a.authenticationMode == "API_AND_CONFIG_MAP"
}

func (a clusterArgs) supportsAccessEntries() bool {
	return a.authenticationMode == "API" || a.authenticationMode == "API_AND_CONFIG_MAP"
}

// parseArgs checks the Construct inputs: every input the stand-in does not implement fails,
// named; createOidcProvider must be a known boolean (the stand-in decides by it what to register);
// authenticationMode is plain in pulumi-eks's schema, and refused as pulumi-eks refuses it; the tag
// maps, when known, must be maps; roleMappings and accessEntries are checked by parseAccess.
func parseArgs(in resource.PropertyMap) (clusterArgs, error) {
	var a clusterArgs
	var unsupported []string
	for k, v := range in {
		if !slices.Contains(implemented, string(k)) && !plainValue(v).IsNull() {
			unsupported = append(unsupported, fmt.Sprintf("%q", string(k)))
		}
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		return a, fmt.Errorf("%s input %s not implemented by the %s (it implements %s): the snippet tests would not test what it does",
			clusterType, strings.Join(unsupported, ", "), standIn, strings.Join(implemented, ", "))
	}
	if v := plainValue(in["createOidcProvider"]); !v.IsNull() {
		switch {
		case v.ContainsUnknowns():
			return a, fmt.Errorf("%s input \"createOidcProvider\" is not known yet: the %s decides by it whether to register the OIDC provider", clusterType, standIn)
		case !v.IsBool():
			return a, fmt.Errorf("%s input \"createOidcProvider\" must be a boolean, got %v", clusterType, v)
		}
		a.createOIDCProvider = v.BoolValue()
	}
	if v := plainValue(in["authenticationMode"]); !v.IsNull() {
		if !v.IsString() || !slices.Contains(authenticationModes, v.StringValue()) {
			// pulumi-eks's validateAuthenticationMode (authenticationMode.ts:27-36).
			return a, fmt.Errorf("Invalid value for authenticationMode: %v. Allowed values are: CONFIG_MAP, API_AND_CONFIG_MAP, API.", v.Mappable())
		}
		a.authenticationMode = v.StringValue()
	}
	for _, k := range []resource.PropertyKey{"clusterSecurityGroupTags", "nodeSecurityGroupTags"} {
		if v := plainValue(in[k]); !v.IsNull() && !v.IsComputed() && !v.IsObject() {
			return a, fmt.Errorf("%s input %q must be a map of strings, got %v", clusterType, string(k), v)
		}
	}
	return a, parseAccess(in, &a)
}

// plainValue unwraps known output values and secrets.
func plainValue(v resource.PropertyValue) resource.PropertyValue {
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
