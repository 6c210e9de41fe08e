package provider_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver"
	"github.com/stretchr/testify/require"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
)

// Every default a description in schema.json states is the value the component uses. A
// description states a default as "Default: `value`.", with what else decides it in parentheses
// ("`karpenter` for versions before 0.32"); each such value is checked against the plan the
// component resolves for unset inputs, or against what it renders. A default another party
// applies ("(EC2's)") is checked the only way it can be here: the component leaves the field
// unset. A stated default without a check below fails, so a new one cannot go unchecked.

// statedDefault is one value a description states: at is "<token>.<property>", says the words
// of the description that state it (the value among them, backticked), uses the value the
// component uses (nil: another party's default, and unset must pass).
type statedDefault struct {
	at, says, value string
	uses            func(t *testing.T) string
	unset           func(t *testing.T)
}

const (
	karpenterAt = "karpenter:index:Karpenter."
	nodePoolAt  = "karpenter:index:NodePool."
	nodeClassAt = "karpenter:index:NodeClass."
)

func statedDefaults() []statedDefault {
	plain := func(extra string) func(t *testing.T) *plan.Plan {
		return func(t *testing.T) *plan.Plan { return planFor(t, extra) }
	}
	def := plain(`{}`)
	str := func(f func(*plan.Plan) any, p func(t *testing.T) *plan.Plan) func(t *testing.T) string {
		return func(t *testing.T) string { return fmt.Sprint(f(p(t))) }
	}
	// Auto Mode refuses the default args' oidcProviderArn.
	autoPlan := func(extra string) func(t *testing.T) *plan.Plan {
		return func(t *testing.T) *plan.Plan {
			args := argstest.Decode[inputs.KarpenterArgs](t, argstest.Merge(t, `{"clusterName": "demo", "mode": "autoMode"}`, extra))
			p, err := plan.New("karpenter", args, plan.Known{}, nil)
			require.NoError(t, err)
			return p
		}
	}
	autoMode := autoPlan(`{}`)
	version := func(v string) func(t *testing.T) *plan.Plan { return plain(`{"version": "` + v + `"}`) }
	firstUnverified := func() string {
		v := semver.MustParse(catalog.DefaultVersion)
		return fmt.Sprintf("%d.%d.0", v.Major, v.Minor+1)
	}

	var out []statedDefault
	add := func(at, says, value string, uses func(t *testing.T) string) {
		out = append(out, statedDefault{at: at, says: says, value: value, uses: uses})
	}
	other := func(at, says, value string, unset func(t *testing.T)) {
		out = append(out, statedDefault{at: at, says: says, value: value, unset: unset})
	}

	// adopt's names: what a render of an adoption on cluster demo imports, with the cluster's name
	// put back as the placeholder the descriptions use.
	adopted := func(version, rules, child string) func(t *testing.T) string {
		return func(t *testing.T) string {
			args := argstest.Merge(t, argstest.DefaultArgs, `{"version": "`+version+`", "adopt": {"interruptionRuleNames": `+rules+`}}`)
			return strings.ReplaceAll(renderOnce(t, args).Get(child).String("name"), "demo", "<clusterName>")
		}
	}
	rules14 := `{"scheduledChange": "s", "spotInterruption": "p", "rebalance": "r", "stateChange": "c", "capacityReservation": "v"}`
	rules031 := `{"scheduledChange": "s", "spotInterruption": "p", "rebalance": "r", "stateChange": "c"}`
	adoptionAt := "karpenter:index:Adoption."
	add(adoptionAt+"nodeRoleName", "Default: `KarpenterNodeRole-<clusterName>`", "KarpenterNodeRole-<clusterName>", adopted("1.14.1", rules14, "karpenter-node"))
	add(adoptionAt+"controllerRoleName", "Default: `<clusterName>-karpenter`", "<clusterName>-karpenter", adopted("1.14.1", rules14, "karpenter-controller"))
	add(adoptionAt+"interruptionQueueName", "Default: `<clusterName>`", "<clusterName>", adopted("1.14.1", rules14, "karpenter-interruption"))
	// The pool and class imported when adopt names none: the guide's, which the component's
	// default pair is named like.
	importedOf := func(child string) func(t *testing.T) string {
		return func(t *testing.T) string {
			args := argstest.Merge(t, argstest.DefaultArgs, `{"version": "1.14.1", "adopt": {"interruptionRuleNames": `+rules14+`}}`)
			return `["` + renderOnce(t, args).Get(child).ImportID + `"]`
		}
	}
	add(adoptionAt+"nodePoolNames", "Default: `[\"default\"]`", `["default"]`, importedOf("karpenter-nodepool-default"))
	add(adoptionAt+"nodeClassNames", "Default: `[\"default\"]`", `["default"]`, importedOf("karpenter-nodeclass-default"))
	// Unset, a drifting change to an adopted class is refused (replacing nodes is not allowed).
	add(adoptionAt+"allowNodeReplacement", "Default: `false`", "false", func(t *testing.T) string {
		args := argstest.Merge(t, argstest.DefaultArgs, `{"version": "1.14.1", "tags": {"team": "a"}, "adopt": {"interruptionRuleNames": `+rules14+`},
			"cluster": {"installed": {"EC2NodeClass/default": {"role": "KarpenterNodeRole-demo"}}}}`)
		return fmt.Sprint(!strings.Contains(rendertest.Error(t, args), "adopt.allowNodeReplacement: true to accept"))
	})
	add(adoptionAt+"instanceProfileName", "Default: `KarpenterNodeInstanceProfile-<clusterName>` (the template's before 0.32", "KarpenterNodeInstanceProfile-<clusterName>", adopted("0.31.4", rules031, "karpenter-node-profile"))

	// The component's inputs, from the plan of args that set none of them.
	add(karpenterAt+"mode", "Default: `selfManaged`", "selfManaged", str(func(p *plan.Plan) any { return p.Mode() }, def))
	add(karpenterAt+"version", "Default: `"+catalog.DefaultVersion+"`", catalog.DefaultVersion, str(func(p *plan.Plan) any { return p.Release.Version }, def))
	add(karpenterAt+"allowUnverifiedVersion", "Default: `false`", "false", func(t *testing.T) string {
		_, err := plan.New("karpenter", karpenterArgs(t, `{"version": "`+firstUnverified()+`"}`), plan.Known{}, nil)
		return fmt.Sprint(err == nil) // an unverified version installs only when allowed
	})
	add(karpenterAt+"readCluster", "Default: `true`", "true", str(func(p *plan.Plan) any { return p.ReadCluster }, def))
	add(karpenterAt+"namespace", "Default: `kube-system`", "kube-system", str(func(p *plan.Plan) any { return p.Namespace }, def))
	add(karpenterAt+"namespace", "Default: `kube-system`", "kube-system", str(func(p *plan.Plan) any { return p.Namespace }, version("0.32.0")))
	add(karpenterAt+"namespace", "`karpenter` for versions before 0.32", "karpenter", str(func(p *plan.Plan) any { return p.Namespace }, version("0.31.0")))
	add(karpenterAt+"serviceAccountName", "Default: `karpenter`", "karpenter", str(func(p *plan.Plan) any { return p.ServiceAccount }, def))
	add(karpenterAt+"controllerIdentity", "Default: `irsa`", "irsa", str(func(p *plan.Plan) any {
		switch {
		case p.TrustIRSA && p.PodIdentity:
			return "both"
		case p.PodIdentity:
			return "podIdentity"
		}
		return "irsa"
	}, def))
	add(karpenterAt+"createPodIdentityAgent", "Default: `false`", "false",
		str(func(p *plan.Plan) any { return p.CreatePodIdentityAgent }, plain(`{"controllerIdentity": "podIdentity"}`)))
	add(karpenterAt+"nodeAccess", "Default: `accessEntry`", "accessEntry", str(func(p *plan.Plan) any { return p.NodeAccess }, def))
	add(karpenterAt+"nodeAccess", "`awsAuth` for a `CONFIG_MAP` cluster", "awsAuth",
		str(func(p *plan.Plan) any { return p.NodeAccess }, plain(`{"clusterAuthenticationMode": "CONFIG_MAP"}`)))
	add(karpenterAt+"nodeAccess", "`none` with `nodeRoleArn`", "none",
		str(func(p *plan.Plan) any { return p.NodeAccess }, plain(`{"nodeRoleArn": "arn:aws:iam::123456789012:role/nodes"}`)))
	add(karpenterAt+"nodeAccess", "with mode `autoMode` always `accessEntry`", "accessEntry",
		str(func(p *plan.Plan) any { return p.NodeAccess }, autoPlan(`{"nodeRoleArn": "arn:aws:iam::123456789012:role/nodes"}`)))
	add(karpenterAt+"createSpotServiceLinkedRole", "Default: `false`", "false", str(func(p *plan.Plan) any { return p.SpotServiceLinkedRole }, def))
	add(karpenterAt+"createInstanceProfile", "Default: `true`", "true", str(func(p *plan.Plan) any { return p.CreateInstanceProfile }, def))
	add(karpenterAt+"createInstanceProfile", "`false` with mode `autoMode`", "false", str(func(p *plan.Plan) any { return p.CreateInstanceProfile }, autoMode))
	add(karpenterAt+"interruptionHandling", "Default: `true`", "true", str(func(p *plan.Plan) any { return p.Interruption }, def))
	add(karpenterAt+"chartRepository", "Default: `"+catalog.DefaultChartRepository+"`", catalog.DefaultChartRepository, str(func(p *plan.Plan) any {
		ref, _, _ := p.ChartSource("karpenter")
		return strings.TrimSuffix(ref, "/karpenter")
	}, def))
	add(karpenterAt+"installCrds", "Default: `true`", "true", str(func(p *plan.Plan) any { return p.CrdRelease }, def))
	add(karpenterAt+"retainCrdsOnDelete", "Default: `false`", "false", str(func(p *plan.Plan) any { return p.RetainCrds }, def))
	add(karpenterAt+"defaultNodePool", "Default: `true`", "true", str(func(p *plan.Plan) any { return len(p.Pools) == 1 }, def))
	other(karpenterAt+"releaseTimeout", "Default: `300` (the kubernetes provider's", "300", func(t *testing.T) {
		for _, release := range renderOnce(t, argstest.DefaultArgs).ByType(format.ReleaseType) {
			require.NotContains(t, release.Inputs, "timeout", "%s sets a timeout", release.Name)
		}
	})

	// The NodePool and NodeClass resources' mode and version.
	for _, at := range []string{nodePoolAt, nodeClassAt} {
		standalone := func(extra string) func(t *testing.T) *plan.Plan {
			if at == nodePoolAt {
				return func(t *testing.T) *plan.Plan {
					p, err := plan.ForNodePool("pool", argstest.Decode[inputs.NodePoolArgs](t, argstest.Merge(t, `{"spec": {"name": "a", "nodeClassRef": "a"}}`, extra)))
					require.NoError(t, err)
					return p
				}
			}
			return func(t *testing.T) *plan.Plan {
				p, err := plan.ForNodeClass("class", argstest.Decode[inputs.NodeClassArgs](t, argstest.Merge(t, `{"clusterName": "demo", "spec": {"name": "a", "role": "nodes"}}`, extra)))
				require.NoError(t, err)
				return p
			}
		}
		add(at+"mode", "Default: `selfManaged`", "selfManaged", str(func(p *plan.Plan) any { return p.Mode() }, standalone(`{}`)))
		add(at+"version", "Default: `"+catalog.DefaultVersion+"`", catalog.DefaultVersion, str(func(p *plan.Plan) any { return p.Release.Version }, standalone(`{}`)))
		add(at+"allowUnverifiedVersion", "Default: `false`", "false", func(t *testing.T) string {
			_, err := plan.ReleaseForMode(nil, new(firstUnverified()), nil)
			return fmt.Sprint(err == nil)
		})
	}

	// Pool and class fields, from what the component renders.
	pool := func(args, path string) func(t *testing.T) string {
		return func(t *testing.T) string {
			return fmt.Sprint(format.Lookup(only(t, renderOnce(t, args), "NodePool").Inputs, path))
		}
	}
	class := func(args, kind, path string) func(t *testing.T) string {
		return func(t *testing.T) string {
			return fmt.Sprint(format.Lookup(only(t, renderOnce(t, args), kind).Inputs, path))
		}
	}
	autoArgs := `{"clusterName": "demo", "mode": "autoMode"}`
	add("karpenter:index:NodePoolSpec.expireAfter", "Default: `720h`", "720h", pool(argstest.DefaultArgs, "spec.template.spec.expireAfter"))
	add("karpenter:index:NodePoolSpec.expireAfter", "`336h` with mode `autoMode`", "336h", pool(autoArgs, "spec.template.spec.expireAfter"))
	add("karpenter:index:Disruption.consolidationPolicy", "Default: `WhenEmptyOrUnderutilized`", "WhenEmptyOrUnderutilized", pool(argstest.DefaultArgs, "spec.disruption.consolidationPolicy"))
	add("karpenter:index:Disruption.consolidateAfter", "Default: `1m`", "1m", pool(argstest.DefaultArgs, "spec.disruption.consolidateAfter"))
	budgets := withDefaultArgs(`{"nodePools": [{"name": "default", "disruption": {"budgets": [{"schedule": "@daily", "duration": "1h"}]}}]}`)
	add("karpenter:index:Budget.nodes", "Default: `10%`", "10%", func(t *testing.T) string {
		b := format.Lookup(only(t, renderOnce(t, budgets), "NodePool").Inputs, "spec.disruption.budgets").([]any)
		return fmt.Sprint(b[0].(map[string]any)["nodes"])
	})
	add("karpenter:index:NodeClassSpec.amiAlias", "Default: `al2023@latest`", "al2023@latest", func(t *testing.T) string {
		terms := format.Lookup(only(t, renderOnce(t, argstest.DefaultArgs), "EC2NodeClass").Inputs, "spec.amiSelectorTerms").([]any)
		return fmt.Sprint(terms[0].(map[string]any)["alias"])
	})
	add("karpenter:index:NodeClassSpec.amiAlias", "`al2@latest` before 0.35", "al2@latest", str(func(p *plan.Plan) any { return p.DefaultAmiAlias }, version("0.34.0")))
	add("karpenter:index:NodeClassSpec.networkPolicy", "Default: `DefaultAllow`", "DefaultAllow", class(autoArgs, "NodeClass", "spec.networkPolicy"))
	add("karpenter:index:NodeClassSpec.networkPolicyEventLogs", "Default: `Disabled`", "Disabled", class(autoArgs, "NodeClass", "spec.networkPolicyEventLogs"))
	add("karpenter:index:NodeClassSpec.snatPolicy", "Default: `Random`", "Random", class(autoArgs, "NodeClass", "spec.snatPolicy"))
	add("karpenter:index:EphemeralStorage.size", "Default: `80Gi`", "80Gi", class(autoArgs, "NodeClass", "spec.ephemeralStorage.size"))
	add("karpenter:index:EphemeralStorage.iops", "Default: `3000`", "3000", class(autoArgs, "NodeClass", "spec.ephemeralStorage.iops"))
	add("karpenter:index:EphemeralStorage.throughput", "Default: `125`", "125", class(autoArgs, "NodeClass", "spec.ephemeralStorage.throughput"))
	statement := withDefaultArgs(`{"controllerPolicyStatements": [{"actions": ["s3:GetObject"], "resources": ["*"]}]}`)
	add("karpenter:index:PolicyStatement.effect", "Default: `Allow`", "Allow", func(t *testing.T) string {
		for _, policy := range renderOnce(t, statement).ByType("aws:iam/policy:Policy") {
			var doc struct {
				Statement []struct{ Effect, Action any }
			}
			require.NoError(t, json.Unmarshal([]byte(policy.String("policy")), &doc))
			for _, s := range doc.Statement {
				if fmt.Sprint(s.Action) == "s3:GetObject" || fmt.Sprint(s.Action) == "[s3:GetObject]" {
					return fmt.Sprint(s.Effect)
				}
			}
		}
		t.Fatal("no policy holds the extra statement")
		return ""
	})

	// Other parties' defaults: the component renders nothing for them.
	absent := func(args, kind string, paths ...string) func(t *testing.T) {
		return func(t *testing.T) {
			require.NotEmpty(t, renderOnce(t, args).ByType(kind), "children of type %s", kind)
			for _, res := range renderOnce(t, args).ByType(kind) {
				for _, path := range paths {
					require.Nil(t, format.Lookup(res.Inputs, path), "%s renders %s", res.Name, path)
				}
			}
		}
	}
	autoClass := `{"clusterName": "demo", "mode": "autoMode", "nodeClasses": [{"name": "a", "role": "nodes",
		"advancedNetworking": {"associatePublicIPAddress": false}, "advancedSecurity": {"kernelLockdown": "integrity"}}]}`
	autoKind := "kubernetes:eks.amazonaws.com/v1:NodeClass"
	other("karpenter:index:AdvancedNetworking.ipv4PrefixSize", "Default: `Auto` (EKS Auto Mode's", "Auto", absent(autoClass, autoKind, "spec.advancedNetworking.ipv4PrefixSize"))
	other("karpenter:index:AdvancedSecurity.fips", "Default: `false` (EKS Auto Mode's", "false", absent(autoClass, autoKind, "spec.advancedSecurity.fips"))
	tracking := withDefaultArgs(`{"nodeClasses": [{"name": "default", "connectionTracking": {"tcpEstablishedTimeout": 600}},
		{"name": "udp", "connectionTracking": {"udpTimeout": 40}}]}`)
	ec2Kind := "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
	unsetIn := func(class, path string) func(t *testing.T) {
		return func(t *testing.T) {
			r := renderOnce(t, tracking)
			require.Nil(t, format.Lookup(r.Get(class).Inputs, path), "%s renders %s", class, path)
		}
	}
	tcp := unsetIn("karpenter-nodeclass-udp", "spec.connectionTracking.tcpEstablishedTimeout")
	other("karpenter:index:ConnectionTracking.tcpEstablishedTimeout", "Default: `432000` (EC2's", "432000", tcp)
	other("karpenter:index:ConnectionTracking.tcpEstablishedTimeout", "`350` on Nitro v6 instance types", "350", tcp)
	other("karpenter:index:ConnectionTracking.udpStreamTimeout", "Default: `180` (EC2's", "180", absent(tracking, ec2Kind, "spec.connectionTracking.udpStreamTimeout"))
	other("karpenter:index:ConnectionTracking.udpTimeout", "Default: `30` (EC2's", "30", unsetIn("karpenter-nodeclass-default", "spec.connectionTracking.udpTimeout"))
	return out
}

func TestStatedDefaultsAreTheComponents(t *testing.T) {
	descriptions := schemaDescriptions(t)
	checks := statedDefaults()
	// Each stated default is one a check below covers.
	stated := regexp.MustCompile("Default: `([^`]*)`")
	for at, desc := range descriptions {
		for _, m := range stated.FindAllStringSubmatch(desc, -1) {
			if !slices.ContainsFunc(checks, func(c statedDefault) bool { return c.at == at && strings.HasPrefix(c.says, m[0]) }) {
				t.Errorf("%s states %s, which no check in statedDefaults covers: add one that reads the value the component uses", at, m[0])
			}
		}
	}
	// And only in that form: not "(default)", "default 180" or "Default (when ...): x".
	otherForm := regexp.MustCompile(`\(default\b|\bdefault:|\bdefault \d|Default \(`)
	for at, desc := range descriptions {
		if m := otherForm.FindString(desc); m != "" {
			t.Errorf("%s states a default as %q: write \"Default: `value`.\" (inputs.Default, inputs.DefaultWith)", at, m)
		}
	}
	for _, c := range checks {
		t.Run(c.at+": "+c.says, func(t *testing.T) {
			desc, ok := descriptions[c.at]
			require.True(t, ok, "no input %s in schema.json", c.at)
			require.Contains(t, c.says, "`"+c.value+"`", "the check's words must hold its value")
			require.Contains(t, desc, c.says, "%s's description no longer says this", c.at)
			if c.unset != nil {
				c.unset(t)
				return
			}
			require.Equal(t, c.value, c.uses(t), "%s: the description says %q, the component uses another value", c.at, c.says)
		})
	}
}

// schemaDescriptions are the descriptions of every input of schema.json's resources and every
// property of its types, by "<token>.<property>".
func schemaDescriptions(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../schema.json")
	require.NoError(t, err)
	type props map[string]struct {
		Description string `json:"description"`
	}
	var s struct {
		Resources map[string]struct {
			InputProperties props `json:"inputProperties"`
		} `json:"resources"`
		Types map[string]struct {
			Properties props `json:"properties"`
		} `json:"types"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	out := map[string]string{}
	for token, r := range s.Resources {
		for name, p := range r.InputProperties {
			out[token+"."+name] = p.Description
		}
	}
	for token, ty := range s.Types {
		for name, p := range ty.Properties {
			out[token+"."+name] = p.Description
		}
	}
	return out
}

func karpenterArgs(t *testing.T, extra string) inputs.KarpenterArgs {
	t.Helper()
	return argstest.Decode[inputs.KarpenterArgs](t, argstest.Merge(t, argstest.DefaultArgs, extra))
}

// planFor is the component's plan for the default args with extra's inputs set.
func planFor(t *testing.T, extra string) *plan.Plan {
	t.Helper()
	p, err := plan.New("karpenter", karpenterArgs(t, extra), plan.Known{}, nil)
	require.NoError(t, err)
	return p
}

// renderOnce renders args once per test binary (the checks read several defaults off one render).
var renders = map[string]*format.Rendered{}

func renderOnce(t *testing.T, args string) *rendertest.Rendered {
	t.Helper()
	if r, ok := renders[args]; ok {
		return rendertest.Of(t, r)
	}
	r := rendertest.Args(t, args)
	renders[args] = r.Rendered
	return r
}

// only is the one child whose type ends in kind (":NodePool", ":EC2NodeClass", ...).
func only(t *testing.T, r *rendertest.Rendered, kind string) format.Resource {
	t.Helper()
	var found []format.Resource
	for _, res := range r.Resources {
		if strings.HasSuffix(res.Type, ":"+kind) {
			found = append(found, res)
		}
	}
	require.Len(t, found, 1, "children of kind %s", kind)
	return found[0]
}

// withDefaultArgs is the default args with extra's inputs set.
func withDefaultArgs(extra string) string {
	args, err := argstest.MergeJSON(argstest.DefaultArgs, extra)
	if err != nil {
		panic(err)
	}
	return args
}
