package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/urn"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The inputs checked against the cluster they install into (plan/cluster_checks.go): render with a
// described `cluster` (provider/render/cluster_mock.go) reads it as `pulumi up` reads the real one
// through the aws provider.

// constructLogged constructs args (as a preview when preview is set) and returns the error and
// the warnings said on the component.
func constructLogged(t *testing.T, args string, preview bool, edit func(*render.Args)) ([]string, error) {
	t.Helper()
	parsed, err := rendertest.ParseArgs([]byte(args))
	require.NoError(t, err)
	parsed.Preview = preview
	if edit != nil {
		edit(&parsed)
	}
	h, err := rendertest.StartHost(t.Context(), &render.Mocks{Cluster: parsed.Cluster}, parsed.Project, parsed.Stack)
	require.NoError(t, err)
	defer h.Close()
	_, _, err = h.Construct(t.Context(), parsed)
	var warnings []string
	for _, l := range h.Warnings() {
		warnings = append(warnings, l.GetMessage())
	}
	return warnings, err
}

func invokedTokens(r *rendertest.Rendered) []string {
	var out []string
	for _, inv := range r.Invokes {
		out = append(out, inv.Token)
	}
	return out
}

func TestAFittingClusterPassesAndIsRead(t *testing.T) {
	r := rendertest.Args(t, rendertest.WithCluster(t, `{}`, `{}`))
	tokens := invokedTokens(r)
	for _, tok := range []string{"aws:eks/getCluster:getCluster", "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider",
		"aws:ec2/getSubnets:getSubnets", "aws:ec2/getSubnet:getSubnet", "aws:ec2/getSecurityGroups:getSecurityGroups", "aws:ssm/getParameter:getParameter"} {
		assert.Contains(t, tokens, tok)
	}
	var roles []string
	for _, inv := range r.Invokes {
		if inv.Token == "aws:iam/getRole:getRole" {
			roles = append(roles, inv.Args["name"].(string))
		}
	}
	assert.Equal(t, []string{"KarpenterNodeRole-demo"}, roles,
		"no pool allows Spot: the service-linked role is not read; a getting-started install's node role is looked for")
	assert.Equal(t, "https://0123456789ABCDEF0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com",
		rendertest.Dig(r.Get("karpenter-release").Inputs["values"].(map[string]any), "settings", "clusterEndpoint"), "the controller's endpoint is the cluster's")
	var params []string
	for _, inv := range r.Invokes {
		if inv.Token == "aws:ssm/getParameter:getParameter" {
			params = append(params, inv.Args["name"].(string))
		}
	}
	assert.Equal(t, []string{"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"}, params,
		"al2023@latest resolves through the cluster's version's parameter")

	plain := rendertest.Default(t)
	assert.NotContains(t, invokedTokens(plain), "aws:eks/getCluster:getCluster", "render without a cluster reads none")
}

func TestNodeAccessFollowsTheClusterMode(t *testing.T) {
	r := rendertest.Args(t, rendertest.WithCluster(t, `{"authenticationMode":"CONFIG_MAP"}`, `{}`))
	assert.True(t, r.Has("karpenter-aws-auth"), "a CONFIG_MAP cluster gets an aws-auth mapping")
	assert.False(t, r.Has("karpenter-node-access"), "and no access entry, which EKS would refuse")
	r = rendertest.Args(t, rendertest.WithCluster(t, `{"authenticationMode":"API"}`, `{}`))
	assert.True(t, r.Has("karpenter-node-access"))
	assert.False(t, r.Has("karpenter-aws-auth"))
}

func TestFindingsNameTheInputTheFactAndTheFix(t *testing.T) {
	for _, tc := range []struct {
		name, cluster, inputs string
		want                  []string
	}{
		{"an access entry on a CONFIG_MAP cluster", `{"authenticationMode":"CONFIG_MAP"}`, `{"nodeAccess":"accessEntry"}`,
			[]string{"nodeAccess: accessEntry, but cluster demo is in CONFIG_MAP mode", "set nodeAccess: awsAuth", "API_AND_CONFIG_MAP"}},
		{"aws-auth on an API cluster", `{"authenticationMode":"API"}`, `{"nodeAccess":"awsAuth"}`,
			[]string{"nodeAccess: awsAuth, but cluster demo is in API mode"}},
		{"an authentication mode the cluster disagrees with", `{"authenticationMode":"CONFIG_MAP"}`, `{"clusterAuthenticationMode":"API"}`,
			[]string{"clusterAuthenticationMode: API, but cluster demo is in CONFIG_MAP mode", "remove clusterAuthenticationMode"}},
		{"a Kubernetes version the release does not support", `{"version":"1.35"}`, `{"version":"1.8.6"}`,
			[]string{"version: Karpenter 1.8.6 does not support Kubernetes 1.35, which cluster demo runs", "set version to 1.9.0 or later"}},
		{"a Kubernetes version older than the release runs on", `{"version":"1.24"}`, `{}`,
			[]string{"version: Karpenter 1.15.2 runs on Kubernetes 1.26 and later (the controller's MinK8sVersion), not on cluster demo's 1.24; upgrade the cluster to 1.26 or later, or set version below 1.0.0"}},
		{"a kubernetesVersion the cluster disagrees with", `{"version":"1.32"}`, `{"kubernetesVersion":"1.33"}`,
			[]string{"kubernetesVersion: 1.33, but cluster demo runs Kubernetes 1.32"}},
		{"untagged subnets", `{"subnets":[{"id":"subnet-1","zone":"us-west-2a","tags":{}}]}`, `{}`,
			[]string{"nodeClasses[0].subnetSelectorTerms (the default class): no subnet in vpc-0render (cluster demo's VPC) carries karpenter.sh/discovery=demo",
				"list the cluster's private subnets in discovery.subnetIds (the component tags them), tag them karpenter.sh/discovery=demo, or change the selector"}},
		{"untagged security groups", `{"securityGroups":[{"id":"sg-1","tags":{}}]}`, `{}`,
			[]string{"nodeClasses[0].securityGroupSelectorTerms (the default class): no security group in vpc-0render", "discovery.securityGroupIds"}},
		{"subnets of another VPC", `{"subnets":[{"id":"subnet-1","zone":"us-west-2a"},{"id":"subnet-2","zone":"us-west-2b","vpcId":"vpc-other"}]}`, `{}`,
			[]string{"nodeClasses[0].subnetSelectorTerms (the default class): matches subnet-2 (vpc-other), outside cluster demo's VPC vpc-0render"}},
		{"a subnet id that matches nothing", `{}`, `{"nodeClasses":[{"name":"a","subnetSelectorTerms":[{"id":"subnet-0nope"}],"securityGroupSelectorTerms":[{"id":"sg-0nope"}]}]}`,
			[]string{"nodeClasses[0].subnetSelectorTerms: no subnet in vpc-0render (cluster demo's VPC) is subnet-0nope", "no subnet of that id exists where the aws provider looks (its account and region): check the id",
				"nodeClasses[0].securityGroupSelectorTerms: no security group in vpc-0render (cluster demo's VPC) is sg-0nope", "no security group of that id exists"}},
		{"a user class's own selector", `{}`, `{"nodeClasses":[{"name":"a","subnetSelectorTerms":[{"tags":{"tier":"private"}}]}]}`,
			[]string{"nodeClasses[0].subnetSelectorTerms: no subnet in vpc-0render (cluster demo's VPC) carries tier=private", "tag the subnets you want"}},
		{"the OIDC provider of another cluster", `{"oidcIssuer":"https://oidc.eks.us-west-2.amazonaws.com/id/OTHER"}`, `{}`,
			[]string{"oidcProviderArn: arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE is the OIDC provider of issuer oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE, and cluster demo's issuer is https://oidc.eks.us-west-2.amazonaws.com/id/OTHER", "cluster.oidcProviderArn"}},
		{"an OIDC provider that does not exist", `{"oidcProviders":[]}`, `{}`,
			[]string{"oidcProviderArn: no IAM OIDC provider arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE exists", "createOidcProvider: true"}},
		{"an OIDC provider without the STS audience", `{"oidcProviders":[{"arn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE","url":"oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE","clientIds":["other"]}]}`, `{}`,
			[]string{"does not list sts.amazonaws.com as a client ID (it lists other)"}},
		{"al2@latest on Kubernetes 1.33", `{"version":"1.33"}`, `{"nodeClasses":[{"name":"a","amiAlias":"al2@latest"}]}`,
			[]string{"nodeClasses[0].amiAlias: al2@latest has no AMI for Kubernetes 1.33, which cluster demo runs: EKS published its last AL2 optimized AMIs for Kubernetes 1.32", "use al2023@latest"}},
		{"an AMI release that was never published", `{"missingParameters":["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20200101/image_id","/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.33-v20200101/image_id"]}`,
			`{"nodeClasses":[{"name":"a","amiAlias":"al2023@v20200101"}]}`,
			[]string{"nodeClasses[0].amiAlias: al2023@v20200101 has no AMI for Kubernetes 1.33", "SSM parameters /aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20200101/image_id and"}},
		{"a Spot pool without the service-linked role", `{"noSpotServiceLinkedRole":true}`,
			`{"nodePools":[{"name":"od"},{"name":"spot","requirements":[{"key":"karpenter.sh/capacity-type","operator":"In","values":["spot"]}]}]}`,
			[]string{"nodePools[1].requirements[0]: allows Spot, and this account has no AWSServiceRoleForEC2Spot service-linked role", "set createSpotServiceLinkedRole: true"}},
		{"a getting-started install running", `{"roles":["KarpenterNodeRole-demo"]}`, `{}`,
			[]string{"adopt: unset, and the IAM role KarpenterNodeRole-demo and the queue demo exist: the node role and interruption queue Karpenter's getting-started guide creates for cluster demo",
				"set adopt to take it over", "set nodeRoleArn to that role to use it"}},
		{"a cluster that does not exist", `{"missing":true}`, `{}`,
			[]string{"clusterName: no EKS cluster named demo exists where the aws provider looks", "readCluster: false"}},
		{"Auto Mode on a cluster without it", `{}`, `{"mode":"autoMode","oidcProviderArn":null}`,
			[]string{"mode: autoMode, but cluster demo does not run EKS Auto Mode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := rendertest.WithCluster(t, tc.cluster, tc.inputs)
			if strings.Contains(tc.inputs, `"oidcProviderArn":null`) {
				args = strings.Replace(args, `"oidcProviderArn":null,`, "", 1)
			}
			msg := rendertest.Error(t, args)
			for _, want := range tc.want {
				assert.Contains(t, msg, want)
			}
			for _, line := range strings.Split(msg, "\n") {
				assert.Regexp(t, rendertest.PathError, line, "each finding starts with the input's path")
			}
		})
	}
}

func TestEveryFindingAtOnce(t *testing.T) {
	msg := rendertest.Error(t, rendertest.WithCluster(t, `{"authenticationMode":"CONFIG_MAP","version":"1.35","subnets":[],"noSpotServiceLinkedRole":true}`,
		`{"version":"1.8.6","nodeAccess":"accessEntry","nodePools":[{"name":"spot","requirements":[{"key":"karpenter.sh/capacity-type","operator":"Exists"}]}]}`))
	lines := strings.Split(msg, "\n")
	require.Len(t, lines, 4, msg)
	for i, prefix := range []string{"nodeAccess: ", "version: ", "nodeClasses[0].subnetSelectorTerms (the default class): ", "nodePools[0].requirements[0]: "} {
		assert.True(t, strings.HasPrefix(lines[i], prefix), "line %d: %s", i, lines[i])
	}
}

func TestDiscoveryIdsCountAsTagged(t *testing.T) {
	untagged := `{"subnets":[{"id":"subnet-1","zone":"us-west-2a","tags":{}},{"id":"subnet-2","zone":"us-west-2b","tags":{}}],"securityGroups":[{"id":"sg-1","tags":{}}]}`
	rendertest.Error(t, rendertest.WithCluster(t, untagged, `{}`))
	r := rendertest.Args(t, rendertest.WithCluster(t, untagged, `{"discovery":{"subnetIds":["subnet-1","subnet-2"],"securityGroupIds":["sg-1"]}}`))
	assert.True(t, r.Has("karpenter-discovery-subnet-1"), "the component tags them, so the default class will find them")
}

func TestFindingsThatAreLikelyMistakesWarn(t *testing.T) {
	warnings, err := constructLogged(t, rendertest.WithCluster(t, `{"subnets":[{"id":"subnet-1","zone":"us-west-2a"}],"version":"1.38"}`, `{}`), false, nil)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(warnings, "\n"), "nodeClasses[0].subnetSelectorTerms (the default class): every subnet it matches (subnet-1) is in us-west-2a")
	assert.Contains(t, strings.Join(warnings, "\n"), "cluster demo runs Kubernetes 1.38, which Karpenter's compatibility matrix as this component knows it does not cover")
}

// A cluster the same update creates: at the preview its name is unknown, so nothing is read,
// node access assumes an access entry, and a warning says what waits for `up`; a known name
// from a resource that does not exist yet is the same. At `up` (known, existing) the checks run.
func TestChecksWaitForAClusterTheUpdateCreates(t *testing.T) {
	args := rendertest.WithCluster(t, `{}`, `{}`)
	warnings, err := constructLogged(t, args, true, func(a *render.Args) {
		a.Inputs = a.Inputs.Set("clusterName", property.New(property.Computed).WithDependencies([]urn.URN{"urn:pulumi:stack::project::aws:eks/cluster:Cluster::demo"}))
	})
	require.NoError(t, err)
	said := strings.Join(warnings, "\n")
	assert.Contains(t, said, "clusterName: not known yet (an output of a resource this update creates): at `pulumi up`, before creating anything, the component reads the cluster and checks its authentication mode, which node access follows (this preview assumes API_AND_CONFIG_MAP: an access entry for the node role)")

	warnings, err = constructLogged(t, rendertest.WithCluster(t, `{"missing":true}`, `{}`), true, func(a *render.Args) {
		a.Inputs = a.Inputs.Set("clusterName", property.New("demo").WithDependencies([]urn.URN{"urn:pulumi:stack::project::aws:eks/cluster:Cluster::demo"}))
	})
	require.NoError(t, err, "a cluster this update creates does not exist at the preview")
	assert.Contains(t, strings.Join(warnings, "\n"), "clusterName: cluster demo does not exist yet (this update creates it)")

	_, err = constructLogged(t, rendertest.WithCluster(t, `{"missing":true}`, `{}`), false, func(a *render.Args) {
		a.Inputs = a.Inputs.Set("clusterName", property.New("demo").WithDependencies([]urn.URN{"urn:pulumi:stack::project::aws:eks/cluster:Cluster::demo"}))
	})
	require.ErrorContains(t, err, "clusterName: no EKS cluster named demo exists", "at up it must exist")

	_, err = constructLogged(t, rendertest.WithCluster(t, `{"missing":true}`, `{}`), true, nil)
	require.ErrorContains(t, err, "clusterName: no EKS cluster named demo exists", "a plain name is a cluster that exists: checked at the preview")
}

func TestReadClusterFalseReadsNothing(t *testing.T) {
	args := argstest.Merge(t, rendertest.WithCluster(t, `{"missing":true}`, `{}`), `{"readCluster":false}`)
	parsed, err := rendertest.ParseArgs([]byte(args))
	require.NoError(t, err)
	out, err := rendertest.Render(context.Background(), parsed)
	require.NoError(t, err)
	for _, inv := range out.Invokes {
		assert.NotEqual(t, "aws:eks/getCluster:getCluster", inv.Token)
	}
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"readCluster":true}`)), "readCluster: render reads no cluster")
}

// Subnets the same update creates, handed to discovery as a list: a preview knows neither the
// ids nor how many, so it registers no discovery tag and the subnet check waits; `up` (all known)
// tags and checks them before any child.
func TestDiscoveryOfSubnetsTheUpdateCreates(t *testing.T) {
	subnets := urn.URN("urn:pulumi:stack::project::aws:ec2/subnet:Subnet::private")
	untagged := `{"subnets":[{"id":"subnet-1","zone":"us-west-2a","tags":{}},{"id":"subnet-2","zone":"us-west-2b","tags":{}}]}`
	warnings, err := constructLogged(t, rendertest.WithCluster(t, untagged, `{"discovery":{"subnetIds":["x"]}}`), true, func(a *render.Args) {
		a.Inputs = a.Inputs.Set("discovery", property.New(map[string]property.Value{"subnetIds": property.New(property.Computed).WithDependencies([]urn.URN{subnets})}))
	})
	require.NoError(t, err, "the preview cannot know the subnets yet")
	said := strings.Join(warnings, "\n")
	assert.Contains(t, said, "discovery.subnetIds: not known yet (outputs of resources this update creates): this preview shows no discovery tags for them")
	assert.Contains(t, said, "nodeClasses[0].subnetSelectorTerms (the default class) against the cluster's subnets")
	assert.Contains(t, said, "\na value they need is not known yet: at `pulumi up`", "the waiting checks name their inputs; clusterName is known")

	// Both lists unknown: a warning for each, on its path, in the same order at every preview.
	groups := urn.URN("urn:pulumi:stack::project::aws:ec2/securityGroup:SecurityGroup::nodes")
	warnings, err = constructLogged(t, rendertest.WithCluster(t, untagged, `{"discovery":{"subnetIds":["x"]}}`), true, func(a *render.Args) {
		a.Inputs = a.Inputs.Set("discovery", property.New(map[string]property.Value{
			"subnetIds":        property.New(property.Computed).WithDependencies([]urn.URN{subnets}),
			"securityGroupIds": property.New(property.Computed).WithDependencies([]urn.URN{groups}),
		}))
	})
	require.NoError(t, err)
	var later []string
	for _, w := range warnings {
		if strings.Contains(w, "not known yet (outputs of resources this update creates)") {
			later = append(later, strings.SplitN(w, ":", 2)[0])
		}
	}
	assert.Equal(t, []string{"discovery.securityGroupIds", "discovery.subnetIds"}, later)

	_, err = constructLogged(t, rendertest.WithCluster(t, untagged, `{"discovery":{"subnetIds":["subnet-1","subnet-2"]}}`), false, nil)
	require.NoError(t, err, "at up the listed subnets count as tagged")
}

// A getting-started install's node role blocks only a new install that would make its own: one
// that adopts it, or names existing IAM with nodeRoleArn, goes ahead.
func TestARunningInstallIsLookedForOnlyByANewInstall(t *testing.T) {
	running := `{"roles":["KarpenterNodeRole-demo"]}`
	for name, inputs := range map[string]string{
		"nodeRoleArn": `{"nodeRoleArn":"arn:aws:iam::123456789012:role/KarpenterNodeRole-demo","createInstanceProfile":true}`,
		"adopt":       `{"version":"1.14.1","adopt":{"interruptionRuleNames":{"scheduledChange":"a","spotInterruption":"b","rebalance":"c","stateChange":"d","capacityReservation":"e"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := rendertest.Args(t, rendertest.WithCluster(t, running, inputs)) // no finding
			if name == "adopt" {
				// The adoption reads the role to import it, which the check would refuse.
				assert.Equal(t, "KarpenterNodeRole-demo", r.Get("karpenter-node").ImportID)
				return
			}
			for _, inv := range r.Invokes {
				if inv.Token == "aws:iam/getRole:getRole" {
					assert.NotEqual(t, "KarpenterNodeRole-demo", inv.Args["name"])
				}
			}
		})
	}
}

// A subnet or security group listed in discovery is checked at its entry: one in another VPC or
// that does not exist is named there, once, and not at each class that selects the discovery tag
// the component puts on it.
func TestDiscoveryIDsAreCheckedWhereTheyAreListed(t *testing.T) {
	cluster := `{"subnets":[{"id":"subnet-1","zone":"us-west-2a"},{"id":"subnet-2","zone":"us-west-2b","vpcId":"vpc-other","tags":{}}]}`
	msg := rendertest.Error(t, rendertest.WithCluster(t, cluster, `{"discovery":{"subnetIds":["subnet-1","subnet-2","subnet-0nope"]}}`))
	assert.Contains(t, msg, "discovery.subnetIds[1]: subnet-2 is in vpc-other, not in cluster demo's VPC vpc-0render: nodes Karpenter launched with it could not reach the cluster; list the subnets of vpc-0render")
	assert.Contains(t, msg, "discovery.subnetIds[2]: subnet-0nope: no subnet of that id exists where the aws provider looks (its account and region); check the id")
	assert.NotContains(t, msg, "subnetSelectorTerms (the default class): matches subnet-2")
	assert.NotContains(t, msg, "discovery.subnetIds[0]")
	rendertest.Args(t, rendertest.WithCluster(t, cluster, `{"discovery":{"subnetIds":["subnet-1"]}}`)) // in the VPC: no finding
}

// A selector's tag value with EC2's wildcards matches as EC2 matches it (render's mock too), so
// render refuses only what AWS would.
func TestWildcardSelectorsMatchAsEC2Does(t *testing.T) {
	cluster := `{"subnets":[{"id":"subnet-1","zone":"us-west-2a","tags":{"Name":"private-a"}},{"id":"subnet-2","zone":"us-west-2b","tags":{"Name":"private-b"}}]}`
	rendertest.Args(t, rendertest.WithCluster(t, cluster, `{"nodeClasses":[{"name":"a","subnetSelectorTerms":[{"tags":{"Name":"private-*"}}]}]}`))
	assert.Contains(t, rendertest.Error(t, rendertest.WithCluster(t, cluster, `{"nodeClasses":[{"name":"a","subnetSelectorTerms":[{"tags":{"Name":"public-*"}}]}]}`)),
		"nodeClasses[0].subnetSelectorTerms: no subnet in vpc-0render (cluster demo's VPC) carries Name=public-*")
}

// IAM names are account-wide and clusters regional: the getting-started node role of a cluster
// named like this one, without the install's queue in this region, is a same-named cluster's
// install elsewhere — a warning, not a refusal (and never "delete the role").
func TestARunningInstallIsOneInThisRegion(t *testing.T) {
	said, err := constructLogged(t, rendertest.WithCluster(t, `{"roles":["KarpenterNodeRole-demo"],"absent":["demo"]}`, `{}`), false, nil)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(said, "\n"), "the IAM role KarpenterNodeRole-demo exists, the node role of a getting-started install of Karpenter on a cluster named demo, but this region has no queue demo")
	for _, w := range said {
		assert.NotContains(t, w, "delete")
	}
}

// A read the deployer may not make (AccessDenied) says nothing about whether the thing exists: the
// check it serves is skipped with a warning naming the IAM action, never a "not found" refusal.
// The cluster itself, unreadable, is refused with the action and the way out (readCluster: false).
func TestAReadRefusedIsNotAThingNotFound(t *testing.T) {
	// A same-named cluster's getting-started node role, without its queue here: every read of a
	// new install is made.
	account := `"roles":["KarpenterNodeRole-demo"],"absent":["demo"]`
	args := rendertest.WithCluster(t, `{`+account+`}`, `{}`)
	actions := map[string]bool{}
	for _, tok := range invokedTokens(rendertest.Args(t, args)) {
		if a, ok := render.ReadActions[tok]; ok {
			actions[a] = true
		}
	}
	require.Contains(t, actions, "sqs:GetQueueUrl", "a new install looks for a running one")
	for action := range actions {
		t.Run(action, func(t *testing.T) {
			denied := rendertest.WithCluster(t, `{`+account+`,"denied":["`+action+`"]}`, `{}`)
			said, err := constructLogged(t, denied, false, nil)
			if action == "eks:DescribeCluster" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "could not read EKS cluster demo")
				assert.Contains(t, err.Error(), "readCluster: false")
				return
			}
			require.NoError(t, err, "a refused read refuses nothing")
			assert.Contains(t, strings.Join(said, "\n"), action, "the warning names the action the check needs")
			for _, w := range said {
				assert.NotContains(t, w, "not found")
				assert.NotContains(t, w, "no such")
			}
		})
	}
}

// An adoption that cannot read a part of the install refuses rather than guess whether to import
// or create it, and says which read failed.
func TestAnAdoptionThatCannotReadRefuses(t *testing.T) {
	for _, action := range []string{"iam:GetRole", "iam:GetPolicy"} {
		_, err := constructLogged(t, argstest.Merge(t, argstest.WithDefaults(t, argstest.AdoptGettingStarted), `{"cluster":{"denied":["`+action+`"]}}`), false, nil)
		require.Error(t, err, action)
		assert.Contains(t, err.Error(), "adopt: could not read IAM")
		assert.Contains(t, err.Error(), "not authorized to perform: "+action)
	}
}

// A finding's fix is never the value already set: an alias that has no AMI is not offered again,
// nor discovery.subnetIds when it lists only subnets elsewhere.
func TestAFixIsNeverTheValueSet(t *testing.T) {
	latest := `{"version":"1.33","missingParameters":["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id","/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id"]}`
	for _, tc := range []struct {
		name, cluster, inputs, want, never string
	}{
		{"the default alias with no AMI in this region", latest, `{}`,
			"use bottlerocket@latest, or wait until EKS publishes its al2023 AMIs for Kubernetes 1.33 in this region", "use al2023@latest"},
		{"discovery.subnetIds listing another VPC's subnet", `{"subnets":[{"id":"subnet-1","zone":"us-west-2a","vpcId":"vpc-other","tags":{}}]}`, `{"discovery":{"subnetIds":["subnet-1"]}}`,
			"list subnets of vpc-0render in discovery.subnetIds (it lists none: see its findings)", "list the cluster's private subnets in discovery.subnetIds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := rendertest.Error(t, rendertest.WithCluster(t, tc.cluster, tc.inputs))
			assert.Contains(t, msg, tc.want)
			assert.NotContains(t, msg, tc.never)
		})
	}
}

// A self-managed install on a cluster that runs EKS Auto Mode runs beside EKS's Karpenter: AWS
// supports that to migrate (docs/auto-mode.md, Migrating to EKS Auto Mode), from Karpenter 1.1 and without
// touching the CRDs the two share — said, and refused before 1.1.
func TestASelfManagedInstallBesideAutoMode(t *testing.T) {
	autoMode := `{"autoMode":true}`
	assert.Contains(t, rendertest.Error(t, rendertest.WithCluster(t, autoMode, `{"version":"1.0.8"}`)),
		"version: Karpenter 1.0.8, and cluster demo runs EKS Auto Mode: AWS supports a self-managed Karpenter beside Auto Mode from 1.1.0 on")
	said, err := constructLogged(t, rendertest.WithCluster(t, autoMode, `{}`), false, nil)
	require.NoError(t, err, "both, while migrating")
	assert.Contains(t, strings.Join(said, "\n"), "mode: selfManaged on cluster demo, which runs EKS Auto Mode: two Karpenters act on NodePools there")
	assert.Contains(t, strings.Join(said, "\n"), "leave the CRDs they share, nodepools.karpenter.sh and nodeclaims.karpenter.sh, as they are (keep version as it is meanwhile")
	said, err = constructLogged(t, rendertest.WithCluster(t, `{}`, `{}`), false, nil)
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(said, "\n"), "runs EKS Auto Mode", "a cluster without Auto Mode")
}

// A node role of the user's with nodeAccess: none needs an access entry of its own on an API-mode
// cluster, or its nodes never join: refused when the cluster has none, passed when it has one.
func TestANodeRoleWithoutAccessOnAnAPIClusterIsRefused(t *testing.T) {
	inputs := `{"nodeRoleArn":"arn:aws:iam::123456789012:role/nodes","nodeAccess":"none"}`
	assert.Contains(t, rendertest.Error(t, rendertest.WithCluster(t, `{"authenticationMode":"API"}`, inputs)),
		"nodeAccess: none, and cluster demo is in API mode with no access entry for nodeRoleArn arn:aws:iam::123456789012:role/nodes: Karpenter's nodes could not join")
	rendertest.Args(t, rendertest.WithCluster(t, `{"authenticationMode":"API","accessEntries":{"nodes":{}}}`, inputs))
	rendertest.Args(t, rendertest.WithCluster(t, `{"authenticationMode":"API_AND_CONFIG_MAP"}`, inputs))
}

// A class's own role must exist: Karpenter makes the class's instance profile for it.
func TestAClassRoleThatDoesNotExistIsRefused(t *testing.T) {
	classes := `{"nodeClasses":[{"name":"gpu","role":"gpu-nodes"}]}`
	assert.Contains(t, rendertest.Error(t, rendertest.WithCluster(t, `{}`, classes)),
		"nodeClasses[0].role: no IAM role gpu-nodes exists in this account: Karpenter could not make the class's instance profile for it")
	rendertest.Args(t, rendertest.WithCluster(t, `{"roles":["gpu-nodes"]}`, classes))
	rendertest.Args(t, rendertest.WithCluster(t, `{"roles":["gpu-nodes"]}`, `{"nodeClasses":[{"name":"gpu","role":"arn:aws:iam::123456789012:role/teams/gpu-nodes"}]}`))
}

// EKS allows one access entry per role: a role that has another owner's entry of the node type
// (a managed node group's) gets none from the component, which says so, and its nodes join through
// that one; the component's own entry (its owner tag, from an earlier up) stays declared; another
// owner's entry of another type is refused, since nodes cannot join through it.
func TestARoleWithAnotherOwnersAccessEntryGetsNoSecond(t *testing.T) {
	classes := `{"nodeClasses":[{"name":"gpu","role":"gpu-nodes"}]}`
	said, err := constructLogged(t, rendertest.WithCluster(t, `{"roles":["gpu-nodes"],"accessEntries":{"gpu-nodes":{}}}`, classes), false, nil)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(said, "\n"), "nodeClasses[0].role: role arn:aws:iam::123456789012:role/gpu-nodes has an access entry on cluster demo already (EC2_LINUX), which this component did not make")
	r := rendertest.Args(t, rendertest.WithCluster(t, `{"roles":["gpu-nodes"],"accessEntries":{"gpu-nodes":{}}}`, classes))
	assert.False(t, r.Has("karpenter-nodeclass-gpu-access"), "another owner's entry: none of the component's")
	assert.True(t, r.Has("karpenter-node-access"), "the node role's own entry is not affected")

	r = rendertest.Args(t, rendertest.WithCluster(t, `{"roles":["gpu-nodes"],"accessEntries":{"gpu-nodes":{"tags":{"pulumi-karpenter:component":"karpenter"}}}}`, classes))
	assert.True(t, r.Has("karpenter-nodeclass-gpu-access"), "the component's own entry, from an earlier up, stays")
	r = rendertest.Args(t, rendertest.WithCluster(t, `{"roles":["gpu-nodes"]}`, argstest.Merge(t, classes, `{"tags":{"team":"gpu"}}`)))
	assert.Equal(t, map[string]any{"team": "gpu", "pulumi-karpenter:component": "karpenter"}, r.Get("karpenter-nodeclass-gpu-access").Inputs["tags"],
		"no entry: the component makes one, with its owner tag")
	assert.Equal(t, map[string]any{"team": "gpu"}, r.Get("karpenter-node-access").Inputs["tags"], "its own node role's entry is never read: no owner tag")

	assert.Contains(t, rendertest.Error(t, rendertest.WithCluster(t, `{"roles":["gpu-nodes"],"accessEntries":{"gpu-nodes":{"type":"STANDARD"}}}`, classes)),
		"nodeClasses[0].role: role arn:aws:iam::123456789012:role/gpu-nodes has an access entry on cluster demo of type STANDARD, through which nodes cannot join (they need EC2_LINUX)")

	nodeRole := `{"nodeRoleArn":"arn:aws:iam::123456789012:role/nodes","nodeAccess":"accessEntry"}`
	said, err = constructLogged(t, rendertest.WithCluster(t, `{"accessEntries":{"nodes":{}}}`, nodeRole), false, nil)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(said, "\n"), "nodeRoleArn: role arn:aws:iam::123456789012:role/nodes has an access entry on cluster demo already (EC2_LINUX)")
	assert.False(t, rendertest.Args(t, rendertest.WithCluster(t, `{"accessEntries":{"nodes":{}}}`, nodeRole)).Has("karpenter-node-access"))
	assert.True(t, rendertest.Args(t, rendertest.WithCluster(t, `{}`, nodeRole)).Has("karpenter-node-access"))
}
