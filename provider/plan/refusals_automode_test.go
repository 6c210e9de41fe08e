package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
)

func TestAutoModeRefusesSelfManagedInputs(t *testing.T) {
	// Each input that configures the Karpenter install, set on its own: the error names it.
	for field, value := range map[string]string{
		"version":                    `"1.15.1"`,
		"allowUnverifiedVersion":     `true`,
		"kubernetesVersion":          `"1.33"`,
		"clusterEndpoint":            `"https://example.eks.amazonaws.com"`,
		"oidcProviderArn":            `"arn:aws:iam::123456789012:oidc-provider/x"`,
		"namespace":                  `"karpenter"`,
		"serviceAccountName":         `"karpenter"`,
		"controllerIdentity":         `"podIdentity"`,
		"createPodIdentityAgent":     `true`,
		"controllerRoleArn":          `"arn:aws:iam::123456789012:role/x"`,
		"controllerPolicyStatements": `[{"actions":["s3:GetObject"],"resources":["*"]}]`,
		"controllerPolicyArns":       `{"x":"arn:aws:iam::aws:policy/ReadOnlyAccess"}`,
		"interruptionHandling":       `false`,
		"chartRepository":            `"oci://example.com/karpenter"`,
		"repositoryUsername":         `"u"`,
		"repositoryPassword":         `"p"`,
		"controllerImageRepository":  `"example.com/controller"`,
		"installCrds":                `true`,
		"retainCrdsOnDelete":         `true`,
		"values":                     `{"replicas":1}`,
		"releaseTimeout":             `600`,
	} {
		t.Run(field, func(t *testing.T) {
			msg := planError(t, argstest.AutoModeWith(t, `{"`+field+`":`+value+`}`))
			assert.Contains(t, msg, field+": not used with mode autoMode")
			assert.Equal(t, 1, strings.Count(msg, "\n")+1, "one problem, said once: %s", msg)
		})
	}
	// Problems are reported together.
	msg := planError(t, argstest.AutoModeWith(t, `{"namespace":"x","values":{"a":1},"interruptionHandling":true}`))
	for _, f := range []string{"namespace:", "values:", "interruptionHandling:"} {
		assert.Contains(t, msg, f)
	}
}

func TestNodeClassFieldsBelongToOneKind(t *testing.T) {
	// EC2NodeClass fields on an Auto Mode class fail, each naming the field and what to use.
	for field, value := range map[string]string{
		"amiAlias":                 `"al2023@latest"`,
		"amiFamily":                `"AL2023"`,
		"amiSelectorTerms":         `[{"id":"ami-0123456789abcdef0"}]`,
		"blockDeviceMappings":      `[{"deviceName":"/dev/xvda","ebs":{"volumeSize":"100Gi"}}]`,
		"metadataOptions":          `{"httpTokens":"required"}`,
		"kubelet":                  `{"maxPods":110}`,
		"userData":                 `"echo hi"`,
		"detailedMonitoring":       `true`,
		"associatePublicIPAddress": `false`,
		"instanceStorePolicy":      `"RAID0"`,
		"enclaveOptions":           `{"enabled":true}`,
		"networkInterfaces":        `[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"}]`,
		"ipPrefixCount":            `1`,
		"connectionTracking":       `{"udpTimeout":30}`,
		"cpuOptions":               `{"nestedVirtualization":"enabled"}`,
		"context":                  `"ctx"`,
	} {
		msg := planError(t, argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"c",`+`"`+field+`":`+value+`}]}`))
		assert.Contains(t, msg, "nodeClasses[0]."+field+": an EC2NodeClass field, not an EKS Auto Mode NodeClass one", field)
	}
	assert.Contains(t, planError(t, argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"c","blockDeviceMappings":[{"deviceName":"/dev/xvda","ebs":{"volumeSize":"100Gi"}}]}]}`)), "use ephemeralStorage")

	// Auto Mode fields on an EC2NodeClass fail the same way.
	for field, value := range map[string]string{
		"ephemeralStorage":              `{"size":"100Gi"}`,
		"networkPolicy":                 `"DefaultDeny"`,
		"networkPolicyEventLogs":        `"Enabled"`,
		"snatPolicy":                    `"Disabled"`,
		"podSubnetSelectorTerms":        `[{"tags":{"a":"b"}}]`,
		"podSecurityGroupSelectorTerms": `[{"tags":{"a":"b"}}]`,
		"advancedNetworking":            `{"httpsProxy":"http://proxy:3128"}`,
		"certificateBundles":            `[{"name":"ca","data":"eA=="}]`,
		"advancedSecurity":              `{"fips":true}`,
	} {
		msg := planError(t, argstest.WithDefaults(t, `{"nodeClasses":[{"name":"c",`+`"`+field+`":`+value+`}]}`))
		assert.Contains(t, msg, "nodeClasses[0]."+field+": an EKS Auto Mode NodeClass field (only with mode autoMode", field)
	}
}

func TestAutoModeNodeClassRules(t *testing.T) {
	class := func(fields string) string {
		return argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"c",`+fields+`}]}`)
	}
	pem := "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==" // base64 of a PEM certificate block
	for name, c := range map[string]struct{ fields, want string }{
		"size pattern":             {`"ephemeralStorage":{"size":"60000Gi"}`, `nodeClasses[0].ephemeralStorage.size: "60000Gi" is not a size of 1-59000Gi`},
		"iops range":               {`"ephemeralStorage":{"iops":2000}`, "nodeClasses[0].ephemeralStorage.iops: 2000 is not between 3000 and 16000"},
		"throughput range":         {`"ephemeralStorage":{"throughput":1001}`, "nodeClasses[0].ephemeralStorage.throughput: 1001 is not between 125 and 1000"},
		"pod terms together":       {`"podSubnetSelectorTerms":[{"tags":{"tier":"pods"}}]`, "podSubnetSelectorTerms and podSecurityGroupSelectorTerms are set together"},
		"pod term id or tags":      {`"podSubnetSelectorTerms":[{"id":"subnet-1","tags":{"a":"b"}}],"podSecurityGroupSelectorTerms":[{"id":"sg-1"}]`, "nodeClasses[0].podSubnetSelectorTerms[0]: set exactly one of id and tags"},
		"role and profile":         {`"role":"a","instanceProfile":"b"`, "role and instanceProfile are mutually exclusive"},
		"reserved tag":             {`"tags":{"eks.amazonaws.com/nodeclass":"x"}`, `tag "eks.amazonaws.com/nodeclass" is reserved for EKS Auto Mode`},
		"owner is 12 digits":       {`"capacityReservationSelectorTerms":[{"tags":{"a":"b"},"ownerID":"123"}]`, "is not an AWS account id"},
		"no instanceMatchCriteria": {`"capacityReservationSelectorTerms":[{"instanceMatchCriteria":"open"}]`, "instanceMatchCriteria: an EC2NodeClass field"},
		"placement group":          {`"placementGroupSelector":{}`, "placementGroupSelector: set exactly one of name and id"},
		"proxy needs a port":       {`"advancedNetworking":{"httpsProxy":"http://proxy.internal"}`, "advancedNetworking.httpsProxy"},
		"noProxy at most 50":       {`"advancedNetworking":{"noProxy":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 51), ",") + `]}`, "advancedNetworking.noProxy: at most 50 entries"},
		"prefix size enum":         {`"advancedNetworking":{"ipv4PrefixSize":"28"}`, "advancedNetworking.ipv4PrefixSize"},
		"public IP, 2 interfaces":  {`"advancedNetworking":{"associatePublicIPAddress":false,"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"},{"networkCardIndex":1,"deviceIndex":0,"interfaceType":"efa-only"}]}`, "associatePublicIPAddress: cannot be set with more than one network interface"},
		"primary interface":        {`"advancedNetworking":{"networkInterfaces":[{"networkCardIndex":1,"deviceIndex":0,"interfaceType":"efa-only"}]}`, "must include the primary interface"},
		"both counts":              {`"advancedNetworking":{"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface","secondaryIPv4Count":4,"secondaryIPv4PrefixCount":1}]}`, "set at most one of secondaryIPv4Count and secondaryIPv4PrefixCount"},
		"counts on card 0 only":    {`"advancedNetworking":{"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"},{"networkCardIndex":1,"deviceIndex":0,"interfaceType":"interface","secondaryIPv4Count":4}]}`, "networkInterfaces[1]: pod IPs are reserved on network card 0 only"},
		"no IPs on efa-only":       {`"advancedNetworking":{"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"},{"networkCardIndex":0,"deviceIndex":1,"interfaceType":"efa-only","secondaryIPv4Count":1}]}`, "an efa-only interface has no IP addresses"},
		"bundle not base64":        {`"certificateBundles":[{"name":"ca","data":"-----BEGIN CERTIFICATE-----"}]`, "certificateBundles[0].data: not base64"},
		"bundle not PEM":           {`"certificateBundles":[{"name":"ca","data":"aGVsbG8="}]`, "certificateBundles[0].data: decodes to no PEM certificate"},
		"bundle name":              {`"certificateBundles":[{"name":"","data":"` + pem + `"}]`, "certificateBundles[0].name: required"},
		"kernel lockdown enum":     {`"advancedSecurity":{"kernelLockdown":"Integrity"}`, "advancedSecurity.kernelLockdown"},
		"snat enum":                {`"snatPolicy":"random"`, "nodeClasses[0].snatPolicy"},
		"subnet terms":             {`"subnetSelectorTerms":[{}]`, "nodeClasses[0].subnetSelectorTerms[0]: set exactly one of id and tags"},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Contains(t, planError(t, class(c.fields)), c.want)
		})
	}
}
