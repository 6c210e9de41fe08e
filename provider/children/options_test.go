package children_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/urn"
	"github.com/pulumi/pulumi/sdk/v3/go/property"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBringYourOwnControllerRole(t *testing.T) {
	arn := "arn:aws:iam::123456789012:role/platform/KarpenterController"
	r := rendertest.Args(t, `{"clusterName":"demo","controllerRoleArn":"`+arn+`"}`)
	assert.False(t, r.Has("karpenter-controller"), "no controller role")
	assert.Empty(t, r.ByType("aws:iam/policy:Policy"), "no controller policies")
	for _, a := range r.ByType("aws:iam/rolePolicyAttachment:RolePolicyAttachment") {
		assert.True(t, strings.HasPrefix(a.Name, "karpenter-node-"), "only node attachments, got %s", a.Name)
	}
	values := r.Get("karpenter-release").Inputs["values"].(map[string]any)
	assert.Equal(t, arn, rendertest.Dig(values, "serviceAccount", "annotations", "eks.amazonaws.com/role-arn"))
	assert.Equal(t, arn, r.Outputs["controllerRoleArn"])
	assert.Equal(t, "KarpenterController", r.Outputs["controllerRoleName"])
	assert.Equal(t, []any{}, r.Outputs["controllerPolicyArns"])
}

func TestBringYourOwnNodeRole(t *testing.T) {
	arn := "arn:aws:iam::123456789012:role/KarpenterNodeRole-demo"
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"nodeRoleArn":"`+arn+`"}`))
	assert.False(t, r.Has("karpenter-node"), "no node role")
	assert.False(t, r.Has("karpenter-node-profile"), "no instance profile")
	assert.False(t, r.Has("karpenter-node-access"), "no access entry for a role the component does not own")
	assert.Equal(t, "KarpenterNodeRole-demo", rendertest.Dig(r.Get("karpenter-nodeclass-default").Inputs, "spec", "role"))

	var doc catalog.PolicyDocument
	require.NoError(t, json.Unmarshal([]byte(r.Get("karpenter-controller-iam-integration").Inputs["policy"].(string)), &doc))
	assert.Equal(t, "AllowPassingInstanceRole", doc.Statement[0].Sid)
	assert.Equal(t, catalog.List{arn}, doc.Statement[0].Resource, "the controller may pass exactly the given role")
	assert.Equal(t, arn, r.Outputs["nodeRoleArn"])
	assert.Equal(t, "", r.Outputs["instanceProfileName"])
}

func TestInterruptionHandlingOff(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"interruptionHandling":false}`))
	assert.Empty(t, r.ByType("aws:sqs/queue:Queue"))
	assert.Empty(t, r.ByType("aws:cloudwatch/eventRule:EventRule"))
	assert.False(t, r.Has("karpenter-controller-interruption"), "no policy for a queue that does not exist")
	values := r.Get("karpenter-release").Inputs["values"].(map[string]any)
	assert.NotContains(t, values["settings"], "interruptionQueue")
	assert.Equal(t, "", r.Outputs["interruptionQueueName"])
	assert.Len(t, r.Outputs["controllerPolicyArns"], 5)
}

func TestClusterEndpointAndUserValues(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{
		"clusterEndpoint": "https://ABC.gr7.us-west-2.eks.amazonaws.com",
		"values": {"replicas": 1, "dnsPolicy": "Default", "settings": {"isolatedVPC": true},
		           "controller": {"resources": {"requests": {"cpu": "500m"}}},
		           "serviceAccount": {"annotations": {"example.com/team": "platform"}}}
	}`))
	values := r.Get("karpenter-release").Inputs["values"].(map[string]any)
	assert.Equal(t, "https://ABC.gr7.us-west-2.eks.amazonaws.com", rendertest.Dig(values, "settings", "clusterEndpoint"))
	assert.Equal(t, "demo", rendertest.Dig(values, "settings", "clusterName"), "user values merge, they do not replace settings")
	assert.Equal(t, true, rendertest.Dig(values, "settings", "isolatedVPC"))
	assert.Equal(t, float64(1), values["replicas"])
	assert.Equal(t, "Default", values["dnsPolicy"])
	assert.Equal(t, "500m", rendertest.Dig(values, "controller", "resources", "requests", "cpu"), "user value wins")
	assert.Equal(t, "1Gi", rendertest.Dig(values, "controller", "resources", "requests", "memory"), "sibling keys kept")
	assert.Equal(t, "platform", rendertest.Dig(values, "serviceAccount", "annotations", "example.com/team"))
	assert.Equal(t, r.Outputs["controllerRoleArn"], rendertest.Dig(values, "serviceAccount", "annotations", "eks.amazonaws.com/role-arn"))
}

func TestUserValuesCanRemoveAKey(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"values": {"controller": {"resources": {"limits": null}}}}`))
	values := r.Get("karpenter-release").Inputs["values"].(map[string]any)
	assert.Nil(t, rendertest.Dig(values, "controller", "resources", "limits"), "null removes a key, as in Helm")
	assert.Equal(t, "1", rendertest.Dig(values, "controller", "resources", "requests", "cpu"))
}

// The component's tags reach what Karpenter launches: every node class carries them, under the
// class's own tags; a key Karpenter reserves on node classes fails naming the component input.
func TestComponentTagsOnNodeClasses(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"tags": {"team": "platform", "cost-center": "1234"},
		"nodeClasses": [{"name": "default"}, {"name": "gpu", "tags": {"team": "ml"}}],
		"nodePools": [{"name": "a", "nodeClassRef": "default"}, {"name": "b", "nodeClassRef": "gpu"}]}`))
	assert.Equal(t, map[string]any{"team": "platform", "cost-center": "1234"}, rendertest.Dig(r.Get("karpenter-nodeclass-default").Inputs, "spec", "tags"))
	assert.Equal(t, map[string]any{"team": "ml", "cost-center": "1234"}, rendertest.Dig(r.Get("karpenter-nodeclass-gpu").Inputs, "spec", "tags"), "the class's own tag wins")
	assert.Nil(t, rendertest.Dig(rendertest.Default(t).Get("karpenter-nodeclass-default").Inputs, "spec", "tags"), "no tags, no spec.tags")

	msg := rendertest.Error(t, argstest.WithDefaults(t, `{"tags": {"karpenter.sh/nodepool": "x", "kubernetes.io/cluster/demo": "owned", "team": "a"}}`))
	for _, k := range []string{"karpenter.sh/nodepool", "kubernetes.io/cluster/demo"} {
		assert.Contains(t, msg, `tags: tag "`+k+`" is reserved for Karpenter on what it launches, and the component puts its tags on every node class`)
	}
	assert.NotContains(t, msg, `"team"`)
	// Without node classes the tags go on the AWS resources only, and any key is fine.
	rendertest.Args(t, argstest.WithDefaults(t, `{"defaultNodePool": false, "tags": {"kubernetes.io/cluster/demo": "owned"}}`))
}

func TestReleaseTimeout(t *testing.T) {
	t.Run("unset leaves the provider's default", func(t *testing.T) {
		r := rendertest.Args(t, argstest.WithDefaults(t, `{}`))
		for _, name := range []string{"karpenter-crd-release", "karpenter-release"} {
			assert.NotContains(t, r.Get(name).Inputs, "timeout", name)
		}
	})
	t.Run("set on both releases", func(t *testing.T) {
		r := rendertest.Args(t, argstest.WithDefaults(t, `{"releaseTimeout": 90}`))
		for _, name := range []string{"karpenter-crd-release", "karpenter-release"} {
			assert.Equal(t, float64(90), r.Get(name).Inputs["timeout"], name)
		}
	})
	t.Run("at least one second", func(t *testing.T) {
		for _, v := range []string{"0", "-5"} {
			assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"releaseTimeout": `+v+`}`)),
				"releaseTimeout: "+v+" is not a number of seconds a release can wait (at least 1)")
		}
	})
}

func TestWithoutCrdRelease(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"installCrds":false}`))
	assert.False(t, r.Has("karpenter-crd-release"))
	assert.True(t, r.Has("karpenter-release"))
	assert.Equal(t, true, r.Get("karpenter-release").Inputs["skipCrds"])
	assert.Contains(t, r.Get("karpenter-nodepool-default").DependsOn, "karpenter-release")
	assert.Equal(t, "", r.Outputs["crdReleaseName"])
}

func TestConfigMapClustersGetNoAccessEntry(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"clusterAuthenticationMode":"CONFIG_MAP"}`))
	assert.False(t, r.Has("karpenter-node-access"))
	r = rendertest.Args(t, argstest.WithDefaults(t, `{"clusterAuthenticationMode":"API"}`))
	entry := r.Get("karpenter-node-access").Inputs
	assert.Equal(t, "EC2_LINUX", entry["type"])
	assert.Equal(t, "demo", entry["clusterName"])
	assert.Equal(t, r.Outputs["nodeRoleArn"], entry["principalArn"])
}

func TestChartRepositories(t *testing.T) {
	for _, tc := range []struct {
		repo, chart, repoOpt string
		version              any
	}{
		{"oci://registry.example.com/mirror/karpenter", "oci://registry.example.com/mirror/karpenter/karpenter", "", "1.15.2"},
		{"https://charts.example.com/karpenter/", "karpenter", "https://charts.example.com/karpenter", "1.15.2"},
		{"/srv/charts", "/srv/charts/karpenter", "", nil},
	} {
		r := rendertest.Args(t, argstest.WithDefaults(t, `{"chartRepository":"`+tc.repo+`"}`))
		rel := r.Get("karpenter-release").Inputs
		assert.Equal(t, tc.chart, rel["chart"], tc.repo)
		assert.Equal(t, tc.version, rel["version"], tc.repo)
		if tc.repoOpt == "" {
			assert.Nil(t, rel["repositoryOpts"], tc.repo)
		} else {
			assert.Equal(t, tc.repoOpt, rendertest.Dig(rel, "repositoryOpts", "repo"), tc.repo)
		}
	}
}

func TestExtraControllerPermissions(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{
		"controllerPolicyArns": {"audit": "arn:aws:iam::123456789012:policy/Audit"},
		"controllerPolicyStatements": [{"actions": ["ec2:DescribeVolumes"], "resources": ["*"], "effect": "Allow"}]
	}`))
	extra := r.Get("karpenter-controller-statements").Inputs["policy"].(string)
	rendertest.AssertSamePolicy(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeVolumes","Resource":"*"}]}`, extra, "extra statements")
	assert.Equal(t, "arn:aws:iam::123456789012:policy/Audit", r.Get("karpenter-controller-attach-audit").Inputs["policyArn"])
	assert.Contains(t, r.Get("karpenter-release").DependsOn, "karpenter-controller-attach-audit", "the controller starts with its extra permissions")
	assert.Len(t, r.Outputs["controllerPolicyArns"], 7)
}

func TestTagsReachEveryTaggableAWSResource(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"tags": {"team": "platform"}}`))
	for _, res := range r.Resources {
		switch res.Type {
		case "aws:iam/role:Role", "aws:iam/policy:Policy", "aws:iam/instanceProfile:InstanceProfile",
			"aws:sqs/queue:Queue", "aws:cloudwatch/eventRule:EventRule", "aws:eks/accessEntry:AccessEntry":
			assert.Equal(t, map[string]any{"team": "platform"}, res.Inputs["tags"], res.Name)
		}
	}
}

func TestPoolsWithoutClassesGetTheDefaultClass(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"nodePools":[{"name":"spot","requirements":[{"key":"karpenter.sh/capacity-type","operator":"In","values":["spot"]}]}]}`))
	assert.True(t, r.Has("karpenter-nodeclass-default"))
	assert.False(t, r.Has("karpenter-nodepool-default"), "no default pool when pools are given")
	tmpl := rendertest.Dig(r.Get("karpenter-nodepool-spot").Inputs, "spec", "template", "spec").(map[string]any)
	assert.Equal(t, "default", rendertest.Dig(tmpl, "nodeClassRef", "name"))
	assert.Equal(t, []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"spot"}}}, tmpl["requirements"])
	assert.Nil(t, rendertest.Dig(r.Get("karpenter-nodepool-spot").Inputs, "spec", "limits"), "user pools get no implicit limits")
}

func TestNoDefaultNodePool(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"defaultNodePool":false}`))
	assert.Empty(t, r.ByType("kubernetes:karpenter.sh/v1:NodePool"))
	assert.Empty(t, r.ByType("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"))
	assert.Equal(t, []any{}, r.Outputs["nodePoolNames"])
}

// Chart values the component sets from its inputs cannot be set (or removed with a null) in
// values, where they would silently win over the IAM, queue and service account the component
// made; the message names the input to use. Other values merge as before.
func TestValuesCannotSetWhatTheComponentOwns(t *testing.T) {
	msg := rendertest.Error(t, argstest.WithDefaults(t, `{"values": {
		"settings": {"clusterName": "other", "clusterEndpoint": "https://x.example.com", "interruptionQueue": null},
		"serviceAccount": {"name": "other", "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/other", "example.com/team": "a"}},
		"controller": {"image": {"repository": "example.com/karpenter"}}}}`))
	for _, want := range []string{
		"values.settings.clusterName: the component sets it from clusterName",
		"values.settings.clusterEndpoint: the component sets it from clusterEndpoint",
		"values.settings.interruptionQueue: the component sets it from interruptionHandling",
		"values.serviceAccount.name: the component sets it from serviceAccountName",
		`values.serviceAccount.annotations["eks.amazonaws.com/role-arn"]: the component sets it from controllerRoleArn`,
	} {
		assert.Contains(t, msg, want)
	}
	assert.Len(t, strings.Split(msg, "\n"), 5, "the image repository is the user's while controllerImageRepository is unset; other annotations are free")

	// The generation's own keys: the Provisioner era's settings.aws.*.
	msg = rendertest.Error(t, argstest.WithDefaults(t, `{"version": "0.31.0", "values": {"settings": {"aws": {"clusterName": "x", "defaultInstanceProfile": "p"}}}}`))
	assert.Contains(t, msg, "values.settings.aws.clusterName: the component sets it from clusterName")
	assert.Contains(t, msg, "values.settings.aws.defaultInstanceProfile: the component sets it from createInstanceProfile")

	// With interruption handling off, the queue setting is the user's; with a mirror set, the
	// image repository is the component's.
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"interruptionHandling": false, "values": {"settings": {"interruptionQueue": "my-queue"}}}`))
	assert.Equal(t, "my-queue", rendertest.Dig(r.Get("karpenter-release").Inputs, "values", "settings", "interruptionQueue"))
	msg = rendertest.Error(t, argstest.WithDefaults(t, `{"controllerImageRepository": "example.com/mirror", "values": {"controller": {"image": {"repository": "example.com/other"}}}}`))
	assert.Contains(t, msg, "values.controller.image.repository: the component sets it from controllerImageRepository")
}

// Tags AWS would refuse fail at preview, before anything is created: its reserved prefix, key
// and value lengths, characters, and the number per resource, counting the component's tags
// and Karpenter's own on what a node class launches.
func TestTagsWithinAWSLimits(t *testing.T) {
	long := strings.Repeat("v", 257)
	// The component's tags (an Input: checked once known, which a plain value is at preview).
	msg := rendertest.Error(t, argstest.WithDefaults(t, `{"tags": {"aws:team": "a", "ok": "`+long+`", "a#b": "c"}}`))
	for _, want := range []string{
		`tags["aws:team"]: keys starting with "aws:" are reserved for AWS's own tags`,
		`tags["ok"]: the value is 257 characters; a tag value is at most 256`,
		`tags["a#b"]: a tag key may contain only letters, numbers, spaces and _ . : / = + - @`,
	} {
		assert.Contains(t, msg, want)
	}
	// A node class's own (plain: checked with the other plain inputs).
	msg = rendertest.Error(t, argstest.WithDefaults(t, `{"nodeClasses": [{"name": "default", "tags": {"AWS:x": "y", "`+strings.Repeat("k", 129)+`": "z"}}]}`))
	assert.Contains(t, msg, `nodeClasses[0].tags["AWS:x"]: keys starting with "aws:" are reserved`)
	assert.Contains(t, msg, `nodeClasses[0].tags["`+strings.Repeat("k", 129)+`"]: a tag key is 1-128 characters`)

	tags := func(prefix string, n int) string {
		var kv []string
		for i := range n {
			kv = append(kv, fmt.Sprintf(`"%s%d": "v"`, prefix, i))
		}
		return "{" + strings.Join(kv, ", ") + "}"
	}
	msg = rendertest.Error(t, argstest.WithDefaults(t, `{"tags": `+tags("c", 51)+`}`))
	assert.Contains(t, msg, "tags: 51 tags; at most 50 here (AWS allows 50 per resource)")
	// The access entries carry the component's owner tag besides (catalog.AccessEntryOwnerTag).
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"defaultNodePool": false, "tags": `+tags("c", 50)+`}`)),
		"tags: 50 tags; at most 49 (AWS allows 50 per resource, and the component adds pulumi-karpenter:component to the access entries it makes for roles of yours)")
	rendertest.Args(t, argstest.WithDefaults(t, `{"defaultNodePool": false, "tags": `+tags("c", 49)+`}`))
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"tags": {"pulumi-karpenter:component": "x"}}`)),
		`tags: tag "pulumi-karpenter:component" is the component's own`)
	msg = rendertest.Error(t, argstest.WithDefaults(t, `{"tags": `+tags("c", 30)+`, "nodeClasses": [{"name": "default", "tags": `+tags("n", 15)+`}]}`))
	assert.Contains(t, msg, "nodeClasses[0].tags: with the component's tags, 45 tags go on what the class launches; at most 44 (AWS allows 50 per resource, and Karpenter adds 6 of its own)")
	rendertest.Args(t, argstest.WithDefaults(t, `{"tags": `+tags("c", 30)+`, "nodeClasses": [{"name": "default", "tags": `+tags("n", 14)+`}]}`))
}

// A bad value known at preview fails the preview even while another input is unknown (here the
// cluster name, as when the cluster is created in the same update): each check of the gate
// also runs on its own as soon as its value is known.
func TestKnownBadValuesFailWhileOthersAreUnknown(t *testing.T) {
	parsed, err := rendertest.ParseArgs([]byte(argstest.WithDefaults(t, `{"tags": {"aws:team": "a"}, "values": {"settings": {"clusterName": "x"}}}`)))
	require.NoError(t, err)
	parsed.Inputs = parsed.Inputs.Set("clusterName", property.New(property.Computed).WithDependencies([]urn.URN{"urn:pulumi:stack::project::aws:eks/cluster:Cluster::cluster"}))
	_, err = rendertest.RenderWith(t.Context(), parsed, &render.Mocks{})
	require.Error(t, err)
	// While one value is unknown, the first failing check is the one reported.
	assert.Contains(t, err.Error(), "values.settings.clusterName: the component sets it from clusterName")

	parsed.Inputs = parsed.Inputs.Delete("values")
	_, err = rendertest.RenderWith(t.Context(), parsed, &render.Mocks{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `tags["aws:team"]: keys starting with "aws:" are reserved`)
}
