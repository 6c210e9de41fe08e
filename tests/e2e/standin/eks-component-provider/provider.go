package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"
)

// plugin is the stand-in: it constructs eks:index:Cluster (cluster_component.go), with the world's
// kubeconfig ($STANDIN_EKS_KUBECONFIG) for the cluster's, as one of releases (versions.go).
var plugin = &componentprovider.Plugin[clusterArgs]{
	Name: "eks", Versions: versions, Use: useRelease, Type: clusterType, Schema: schemaJSON, Parse: parseArgs,
	Construct: func(ctx *pulumi.Context, name string, args clusterArgs, inputs pprovider.ConstructInputs, options pulumi.ResourceOption) (*pprovider.ConstructResult, error) {
		return construct(ctx, name, args, inputs, options, os.Getenv("STANDIN_EKS_KUBECONFIG"))
	},
}

// clusterType is the one resource the stand-in constructs.
const clusterType = "eks:index:Cluster"

// The inputs the stand-in implements, as pulumi-eks names them (sorted; the same in 4.3.0 and 3.9.1).
var implemented = []string{"accessEntries", "authenticationMode", "autoMode", "clusterSecurityGroupTags", "createOidcProvider", "desiredCapacity",
	"instanceType", "maxSize", "minSize", "name", "nodeSecurityGroupTags", "privateSubnetIds", "publicSubnetIds", "roleMappings",
	"subnetIds", "version", "vpcId"}

// defaultNodeGroupInputs configure only the default node group, which the stand-in does not create
// (main.go: the world's system nodes stand for it): they are checked as pulumi-eks checks them, and
// the Construct's log names them as not applied.
var defaultNodeGroupInputs = []string{"desiredCapacity", "instanceType", "maxSize", "minSize"}

var authenticationModes = []string{"CONFIG_MAP", "API_AND_CONFIG_MAP", "API"}

// clusterArgs are the inputs the construct decides by (name, version, the tag maps and
// roleMappings go to the resources as they are, outputs included).
type clusterArgs struct {
	createOIDCProvider bool
	authenticationMode string // "" when unset: pulumi-eks then treats the cluster as CONFIG_MAP
	// accessEntries are the names of the accessEntries and of each one's access policies: pulumi-eks
	// names a resource after each.
	accessEntries map[string][]string
	// defaultNodeGroup are the default node group's inputs given (defaultNodeGroupInputs).
	defaultNodeGroup []string
	// autoMode is autoMode.enabled; autoModeNodeRole is autoMode.createNodeRole (default true).
	autoMode, autoModeNodeRole bool
}

func (a clusterArgs) String() string {
	mode := a.authenticationMode
	if mode == "" {
		mode = "unset (CONFIG_MAP)"
	}
	s := fmt.Sprintf("authenticationMode %s, createOidcProvider %v", mode, a.createOIDCProvider)
	if a.autoMode {
		s += fmt.Sprintf(", Auto Mode (createNodeRole %v)", a.autoModeNodeRole)
	}
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
	if err := parseAutoMode(in["autoMode"], &a); err != nil {
		return a, err
	}
	// cluster.ts:432-436, in its words.
	given := func(k resource.PropertyKey) bool { return !plainValue(in[k]).IsNull() }
	if given("subnetIds") && (given("publicSubnetIds") || given("privateSubnetIds")) {
		return a, errors.New("subnetIds, and the use of publicSubnetIds and/or privateSubnetIds are mutually exclusive. Choose a single approach.")
	}
	for _, k := range defaultNodeGroupInputs {
		v := plainValue(in[resource.PropertyKey(k)])
		if v.IsNull() || v.IsComputed() {
			continue
		}
		switch {
		case k == "instanceType" && !v.IsString():
			return a, fmt.Errorf("%s input %q must be a string, got %v", clusterType, k, v)
		case k != "instanceType" && !v.IsNumber():
			return a, fmt.Errorf("%s input %q must be an integer, got %v", clusterType, k, v)
		}
		a.defaultNodeGroup = append(a.defaultNodeGroup, k)
	}
	for _, k := range []resource.PropertyKey{"clusterSecurityGroupTags", "nodeSecurityGroupTags"} {
		if v := plainValue(in[k]); !v.IsNull() && !v.IsComputed() && !v.IsObject() {
			return a, fmt.Errorf("%s input %q must be a map of strings, got %v", clusterType, string(k), v)
		}
	}
	return a, parseAccess(in, &a)
}

// parseAutoMode reads autoMode ({enabled, createNodeRole}, both plain in pulumi-eks's schema) and
// refuses it where pulumi-eks does (cluster.ts:458-463, in its words). computeConfig is not
// implemented: refused, named.
func parseAutoMode(v resource.PropertyValue, a *clusterArgs) error {
	v = plainValue(v)
	if v.IsNull() {
		return nil
	}
	if !v.IsObject() {
		return fmt.Errorf("%s input \"autoMode\" must be an object {enabled, createNodeRole}, got %v", clusterType, v)
	}
	opts := v.ObjectValue()
	for k, f := range opts {
		if k != "enabled" && k != "createNodeRole" && !plainValue(f).IsNull() {
			return fmt.Errorf("%s input \"autoMode.%s\" not implemented by the %s (it implements autoMode.enabled and autoMode.createNodeRole)", clusterType, k, standIn)
		}
	}
	flag := func(k resource.PropertyKey, unset bool) (bool, error) {
		f := plainValue(opts[k])
		switch {
		case f.IsNull():
			return unset, nil
		case !f.IsBool():
			return false, fmt.Errorf("%s input \"autoMode.%s\" must be a boolean, got %v", clusterType, string(k), f)
		}
		return f.BoolValue(), nil
	}
	var err error
	if a.autoMode, err = flag("enabled", false); err != nil {
		return err
	}
	if a.autoModeNodeRole, err = flag("createNodeRole", true); err != nil {
		return err
	}
	if a.autoMode && !a.supportsAccessEntries() {
		return errors.New("Access entries are required when using EKS Auto Mode. Use the authentication mode 'API' or 'API_AND_CONFIG_MAP'.")
	}
	if !a.autoMode {
		a.autoModeNodeRole = false
	}
	return nil
}

var plainValue = componentprovider.PlainValue
