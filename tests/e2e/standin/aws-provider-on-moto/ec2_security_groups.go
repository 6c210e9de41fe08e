package main

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"net/url"
	"slices"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// aws:ec2/securityGroup:SecurityGroup and aws:ec2/securityGroupRule:SecurityGroupRule, against
// moto's EC2. Not used by the component: the README's programs create them through pulumi-eks
// (its cluster and node security groups and their rules), which
// tests/e2e/standin/eks-component-provider registers as pulumi-eks does.
//
// Inputs as pulumi-aws names them; schema, ForceNew flags and defaults from terraform-provider-aws
// (stored copies in the search tool's code corpus):
//   - internal/service/ec2/vpc_security_group.go (commit 01606926, a v6 release): description
//     (Default "Managed by Terraform", which pulumi-aws replaces with "Managed by Pulumi"), name,
//     name_prefix and vpc_id are ForceNew; tags and revoke_rules_on_delete (Default false, state
//     only) update in place; ingress and egress (in-line rule sets) are not implemented here
//     (Check fails naming them). Create revokes the allow-all IPv4 egress rule EC2 adds, as
//     terraform does; delete revokes the group's own rules first when revoke_rules_on_delete.
//   - internal/service/ec2/vpc_security_group_rule.go (commit 0d90774d): type, protocol,
//     from_port, to_port, security_group_id, cidr_blocks, ipv6_cidr_blocks, prefix_list_ids, self
//     (Default false) and source_security_group_id (Optional+Computed) are all ForceNew; only
//     description updates in place (UpdateSecurityGroupRuleDescriptions*). cidr and ipv6 blocks
//     conflict with self and source_security_group_id; at least one source is required.

func init() {
	for _, t := range []*rtype{
		{
			token: "aws:ec2/securityGroup:SecurityGroup",
			inputs: map[string]prop{
				"description":         {kind: kString, forceNew: true, def: sv("Managed by Pulumi")},
				"egress":              {unsupported: true},
				"ingress":             {unsupported: true},
				"name":                {kind: kString, forceNew: true, computed: true},
				"namePrefix":          {kind: kString, forceNew: true, computed: true},
				"revokeRulesOnDelete": {kind: kBool, def: bv(false)},
				"tags":                tagsProp,
				"vpcId":               {kind: kString, forceNew: true, computed: true},
			},
			outputs:     []string{"arn", "ownerId"},
			tags:        true,
			autoname:    255,
			forPrograms: true,
			ops:         securityGroupOps,
		},
		{
			token: "aws:ec2/securityGroupRule:SecurityGroupRule",
			inputs: map[string]prop{
				"cidrBlocks":            {kind: kStringList, forceNew: true},
				"description":           {kind: kString},
				"fromPort":              {kind: kInt, required: true, forceNew: true},
				"ipv6CidrBlocks":        {kind: kStringList, forceNew: true},
				"prefixListIds":         {kind: kStringList, forceNew: true},
				"protocol":              {kind: kString, required: true, forceNew: true},
				"securityGroupId":       {kind: kString, required: true, forceNew: true},
				"self":                  {kind: kBool, forceNew: true, def: bv(false)},
				"sourceSecurityGroupId": {kind: kString, forceNew: true, computed: true},
				"toPort":                {kind: kInt, required: true, forceNew: true},
				"type":                  {kind: kString, required: true, forceNew: true},
			},
			outputs:     []string{"securityGroupRuleId"},
			forPrograms: true,
			ops:         securityGroupRuleOps,
		},
	} {
		types[t.token] = t
	}
}

// ---- EC2 calls ------------------------------------------------------------------------------

// ec2Permission is one IpPermission of a DescribeSecurityGroups answer.
type ec2Permission struct {
	IPProtocol string `xml:"ipProtocol"`
	FromPort   *int   `xml:"fromPort"`
	ToPort     *int   `xml:"toPort"`
	Groups     []struct {
		GroupID     string `xml:"groupId"`
		Description string `xml:"description"`
	} `xml:"groups>item"`
	IPRanges []struct {
		CidrIP      string `xml:"cidrIp"`
		Description string `xml:"description"`
	} `xml:"ipRanges>item"`
	IPv6Ranges []struct {
		CidrIPv6    string `xml:"cidrIpv6"`
		Description string `xml:"description"`
	} `xml:"ipv6Ranges>item"`
	PrefixListIDs []struct {
		PrefixListID string `xml:"prefixListId"`
		Description  string `xml:"description"`
	} `xml:"prefixListIds>item"`
}

type ec2GroupDetail struct {
	GroupID     string          `xml:"groupId"`
	GroupName   string          `xml:"groupName"`
	Description string          `xml:"groupDescription"`
	VpcID       string          `xml:"vpcId"`
	OwnerID     string          `xml:"ownerId"`
	Arn         string          `xml:"securityGroupArn"`
	Ingress     []ec2Permission `xml:"ipPermissions>item"`
	Egress      []ec2Permission `xml:"ipPermissionsEgress>item"`
	Tags        []ec2Tag        `xml:"tagSet>item"`
}

// securityGroup reads one group with its rules; nil when EC2 has none of that ID.
func (q *ec2Query) securityGroup(ctx context.Context, id string) (*ec2GroupDetail, error) {
	var out struct {
		Groups []ec2GroupDetail `xml:"securityGroupInfo>item"`
	}
	err := q.call(ctx, "DescribeSecurityGroups", url.Values{"GroupId.1": {id}}, &out)
	if errorCode(err) == "InvalidGroup.NotFound" || (err == nil && len(out.Groups) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &out.Groups[0], nil
}

// sgRule is a rule as terraform's expandIPPermission builds it from the resource's inputs.
type sgRule struct {
	egress                    bool
	protocol                  string
	fromPort, toPort          int
	cidrs, ipv6s, prefixLists []string
	sourceGroup               string // the source group, or the group itself for self
	description               string
}

func ruleOf(in pmap) sgRule {
	from, _ := integer(in, "fromPort")
	to, _ := integer(in, "toPort")
	r := sgRule{
		egress: str(in, "type") == "egress", protocol: protocolName(str(in, "protocol")), fromPort: from, toPort: to,
		cidrs: stringList(in, "cidrBlocks"), ipv6s: stringList(in, "ipv6CidrBlocks"), prefixLists: stringList(in, "prefixListIds"),
		sourceGroup: str(in, "sourceSecurityGroupId"), description: str(in, "description"),
	}
	if self, _ := boolean(in, "self"); self {
		r.sourceGroup = str(in, "securityGroupId")
	}
	return r
}

// protocolName is terraform's ProtocolForValue: "all" is -1, the common protocol numbers are
// their names.
func protocolName(p string) string {
	p = strings.ToLower(p)
	if n, ok := map[string]string{"all": "-1", "6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6"}[p]; ok {
		return n
	}
	return p
}

// params are the rule as one IpPermissions entry (with the group, or the permissions of a group
// given as they are described, for a revoke of everything).
func (r sgRule) params(groupID string) url.Values {
	v := url.Values{"GroupId": {groupID}, "IpPermissions.1.IpProtocol": {r.protocol},
		"IpPermissions.1.FromPort": {fmt.Sprint(r.fromPort)}, "IpPermissions.1.ToPort": {fmt.Sprint(r.toPort)}}
	add := func(list string, field string, items []string) {
		for i, s := range items {
			v.Set(fmt.Sprintf("IpPermissions.1.%s.%d.%s", list, i+1, field), s)
			if r.description != "" {
				v.Set(fmt.Sprintf("IpPermissions.1.%s.%d.Description", list, i+1), r.description)
			}
		}
	}
	add("IpRanges", "CidrIp", r.cidrs)
	add("Ipv6Ranges", "CidrIpv6", r.ipv6s)
	add("PrefixListIds", "PrefixListId", r.prefixLists)
	if r.sourceGroup != "" {
		add("Groups", "GroupId", []string{r.sourceGroup})
	}
	return v
}

func (r sgRule) action(verb string) string {
	if r.egress {
		return verb + "SecurityGroupEgress"
	}
	return verb + "SecurityGroupIngress"
}

// match finds the rule among a group's permissions (terraform's findRuleMatch: same protocol,
// the same ports unless the protocol is -1, and every source of the rule present), and its
// description.
func (r sgRule) match(g *ec2GroupDetail) (bool, string) {
	perms := g.Ingress
	if r.egress {
		perms = g.Egress
	}
	for _, p := range perms {
		if protocolName(p.IPProtocol) != r.protocol {
			continue
		}
		if r.protocol != "-1" && (p.FromPort == nil || p.ToPort == nil || *p.FromPort != r.fromPort || *p.ToPort != r.toPort) {
			continue
		}
		var have []string
		desc := ""
		for _, x := range p.IPRanges {
			have, desc = append(have, x.CidrIP), x.Description
		}
		for _, x := range p.IPv6Ranges {
			have, desc = append(have, x.CidrIPv6), x.Description
		}
		for _, x := range p.PrefixListIDs {
			have, desc = append(have, x.PrefixListID), x.Description
		}
		for _, x := range p.Groups {
			have, desc = append(have, x.GroupID), x.Description
		}
		want := slices.Concat(r.cidrs, r.ipv6s, r.prefixLists)
		if r.sourceGroup != "" {
			want = append(want, r.sourceGroup)
		}
		if len(want) > 0 && !slices.ContainsFunc(want, func(s string) bool { return !slices.Contains(have, s) }) {
			return true, desc
		}
	}
	return false, ""
}

// id is terraform's SecurityGroupRuleCreateID: "sgrule-" and a hash of the group, type and
// permission.
func (r sgRule) id(groupID string) string {
	key := fmt.Sprintf("%s-%v-%s-%d-%d-%s", groupID, r.egress, r.protocol, r.fromPort, r.toPort,
		strings.Join(slices.Concat(r.cidrs, r.ipv6s, r.prefixLists, []string{r.sourceGroup}), ","))
	return fmt.Sprintf("sgrule-%d", crc32.ChecksumIEEE([]byte(key)))
}

// ruleID is the EC2 security group rule ID of a rule (DescribeSecurityGroupRules), "" if none.
func (q *ec2Query) ruleID(ctx context.Context, groupID string, r sgRule) string {
	var out struct {
		Rules []struct {
			ID       string `xml:"securityGroupRuleId"`
			Egress   bool   `xml:"isEgress"`
			Protocol string `xml:"ipProtocol"`
			Cidr     string `xml:"cidrIpv4"`
			Cidr6    string `xml:"cidrIpv6"`
			Prefix   string `xml:"prefixListId"`
			Group    string `xml:"referencedGroupInfo>groupId"`
		} `xml:"securityGroupRuleSet>item"`
	}
	params := url.Values{}
	filterParams(params, []ec2Filter{{Name: "group-id", Values: []string{groupID}}})
	if q.call(ctx, "DescribeSecurityGroupRules", params, &out) != nil {
		return ""
	}
	for _, x := range out.Rules {
		src := x.Cidr + x.Cidr6 + x.Prefix + x.Group
		if x.Egress == r.egress && protocolName(x.Protocol) == r.protocol &&
			slices.Contains(slices.Concat(r.cidrs, r.ipv6s, r.prefixLists, []string{r.sourceGroup}), src) {
			return x.ID
		}
	}
	return ""
}

// ---- aws:ec2/securityGroup:SecurityGroup ----------------------------------------------------

var securityGroupOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		for _, k := range []string{"name", "namePrefix"} {
			if v := str(in, k); strings.HasPrefix(v, "sg-") || len(v) > 255 {
				out = append(out, failure(k, "%q must be at most 255 characters and cannot begin with sg-, got %q", k, v))
			}
		}
		if len(str(in, "description")) > 255 {
			out = append(out, failure("description", "expected length of description to be in the range (0 - 255)"))
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		name := str(in, "name")
		if name == "" {
			name = str(in, "namePrefix") + randomDigits(26)
		}
		q := c.aws().ec2
		id, err := q.createSecurityGroup(ctx, name, strOr(in, "description", "Managed by Pulumi"), str(in, "vpcId"), stringMap(in, "tags"))
		if err != nil {
			return "", fmt.Errorf("creating Security Group (%s): %w", name, err)
		}
		// "AWS defaults all Security Groups to have an ALLOW ALL egress rule. Here we revoke that
		// rule, so users don't unknowingly have/use it."
		all := sgRule{egress: true, protocol: "-1", cidrs: []string{"0.0.0.0/0"}}
		if err := q.call(ctx, "RevokeSecurityGroupEgress", all.params(id), nil); err != nil {
			return id, fmt.Errorf("revoking default IPv4 egress rule for Security Group (%s): %w", id, err)
		}
		return id, nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		g, err := c.aws().ec2.securityGroup(ctx, id)
		if g == nil || err != nil {
			return nil, err
		}
		arn := g.Arn
		if arn == "" {
			arn = fmt.Sprintf("arn:%s:ec2:%s:%s:security-group/%s", c.partition(), c.region(), g.OwnerID, g.GroupID)
		}
		tags := tagMap(g.Tags)
		return pmap{
			"arn": sv(arn), "description": sv(g.Description), "name": sv(g.GroupName), "namePrefix": sv(""),
			"ownerId": sv(g.OwnerID), "vpcId": sv(g.VpcID), "revokeRulesOnDelete": bv(boolOr(in, "revokeRulesOnDelete", false)),
			"tags": mapValue(tags), "tagsAll": mapValue(tags),
		}, nil
	},
	update: func(ctx context.Context, c *call, id string, _, oldIn, newIn pmap) error {
		// revokeRulesOnDelete lives in the state only
		return updateTags(ctx, c.aws().ec2, "Security Group", id, stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
	},
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		q := c.aws().ec2
		if revoke, _ := boolean(state, "revokeRulesOnDelete"); revoke {
			if err := revokeAll(ctx, q, id); err != nil {
				return err
			}
		}
		err := q.deleteSecurityGroup(ctx, id)
		if errorCode(err) == "InvalidGroup.NotFound" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("deleting Security Group (%s): %w", id, err)
		}
		return nil
	},
}

// revokeAll revokes every rule of a group, each as EC2 describes it (terraform's
// forceRevokeSecurityGroupRules for the group's own rules).
func revokeAll(ctx context.Context, q *ec2Query, id string) error {
	g, err := q.securityGroup(ctx, id)
	if g == nil || err != nil {
		return err
	}
	var errs []error
	for egress, perms := range map[bool][]ec2Permission{false: g.Ingress, true: g.Egress} {
		for _, p := range perms {
			r := sgRule{egress: egress, protocol: protocolName(p.IPProtocol)}
			if p.FromPort != nil && p.ToPort != nil {
				r.fromPort, r.toPort = *p.FromPort, *p.ToPort
			}
			for _, x := range p.IPRanges {
				r.cidrs = append(r.cidrs, x.CidrIP)
			}
			for _, x := range p.IPv6Ranges {
				r.ipv6s = append(r.ipv6s, x.CidrIPv6)
			}
			for _, x := range p.PrefixListIDs {
				r.prefixLists = append(r.prefixLists, x.PrefixListID)
			}
			for _, x := range p.Groups {
				// moto matches a group source with its description: revoke it as described.
				one := r
				one.cidrs, one.ipv6s, one.prefixLists, one.sourceGroup, one.description = nil, nil, nil, x.GroupID, x.Description
				errs = append(errs, ignoreCode(q.call(ctx, one.action("Revoke"), one.params(id), nil), "InvalidPermission.NotFound"))
			}
			if len(r.cidrs)+len(r.ipv6s)+len(r.prefixLists) > 0 {
				errs = append(errs, ignoreCode(q.call(ctx, r.action("Revoke"), r.params(id), nil), "InvalidPermission.NotFound"))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("revoking Security Group (%s) rules: %w", id, err)
	}
	return nil
}

func ignoreCode(err error, code string) error {
	if errorCode(err) == code {
		return nil
	}
	return err
}

// ---- aws:ec2/securityGroupRule:SecurityGroupRule ------------------------------------------

var securityGroupRuleOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		if v := str(in, "type"); v != "" && v != "ingress" && v != "egress" {
			out = append(out, enumFailure("type", v, []string{"egress", "ingress"}))
		}
		for _, c := range stringList(in, "cidrBlocks") {
			if _, n, err := net.ParseCIDR(c); err != nil || n.String() != c || n.IP.To4() == nil {
				out = append(out, failure("cidrBlocks", "%q is not a valid IPv4 CIDR network address", c))
			}
		}
		self, _ := boolean(in, "self")
		cidrs := has(in, "cidrBlocks") || has(in, "ipv6CidrBlocks")
		switch {
		case cidrs && (self || has(in, "sourceSecurityGroupId")):
			out = append(out, failure("cidrBlocks", `"cidrBlocks"/"ipv6CidrBlocks": conflicts with self and sourceSecurityGroupId`))
		case self && has(in, "sourceSecurityGroupId"):
			out = append(out, failure("self", `"self": conflicts with sourceSecurityGroupId`))
		case !cidrs && !self && !has(in, "sourceSecurityGroupId") && !has(in, "prefixListIds"):
			out = append(out, failure("cidrBlocks", `one of "cidrBlocks", "ipv6CidrBlocks", "prefixListIds", "self", "sourceSecurityGroupId" must be specified`))
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		q, groupID, r := c.aws().ec2, str(in, "securityGroupId"), ruleOf(in)
		if g, err := q.securityGroup(ctx, groupID); err != nil || g == nil {
			return "", fmt.Errorf("reading Security Group (%s): %s", groupID, notFoundOr(err, "couldn't find resource"))
		}
		err := q.call(ctx, r.action("Authorize"), r.params(groupID), nil)
		if errorCode(err) == "InvalidPermission.Duplicate" {
			return "", fmt.Errorf("[WARN] A duplicate Security Group rule was found on (%s): %w", groupID, err)
		}
		if err != nil {
			return "", fmt.Errorf("authorizing Security Group (%s) Rule (%s): %w", groupID, r.id(groupID), err)
		}
		return r.id(groupID), nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		q, groupID, r := c.aws().ec2, str(in, "securityGroupId"), ruleOf(in)
		g, err := q.securityGroup(ctx, groupID)
		if g == nil || err != nil {
			return nil, err
		}
		found, desc := r.match(g)
		if !found {
			return nil, nil
		}
		outs := in.Copy()
		delete(outs, defaultsKey)
		outs["description"] = sv(desc)
		outs["self"] = bv(boolOr(in, "self", false))
		outs["sourceSecurityGroupId"] = sv(str(in, "sourceSecurityGroupId"))
		outs["securityGroupRuleId"] = sv(q.ruleID(ctx, groupID, r))
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, state, _, newIn pmap) error {
		q, groupID, r := c.aws().ec2, str(newIn, "securityGroupId"), ruleOf(newIn)
		if err := q.call(ctx, "UpdateSecurityGroupRuleDescriptions"+strings.TrimPrefix(r.action(""), "SecurityGroup"),
			r.params(groupID), nil); err != nil {
			return fmt.Errorf("updating Security Group (%s) Rule (%s) description: %w", groupID, id, err)
		}
		// moto 5.2.5 finds the rule to update by equality, which for a group source compares the
		// descriptions too: the description of such a rule never changes there. The stand-in then
		// revokes the rule as it is and authorizes it with the new description (its EC2 rule ID
		// changes; AWS keeps it).
		g, err := q.securityGroup(ctx, groupID)
		if err != nil || g == nil || r.sourceGroup == "" {
			return err
		}
		if _, desc := r.match(g); desc != r.description {
			old := r
			old.description = str(state, "description")
			if err := q.call(ctx, old.action("Revoke"), old.params(groupID), nil); err != nil {
				return fmt.Errorf("updating Security Group (%s) Rule (%s) description (revoking it, moto cannot update it): %w", groupID, id, err)
			}
			if err := q.call(ctx, r.action("Authorize"), r.params(groupID), nil); err != nil {
				return fmt.Errorf("updating Security Group (%s) Rule (%s) description (authorizing it again): %w", groupID, id, err)
			}
			c.note(ctx, fmt.Sprintf("updated the description of %s %s by revoking and authorizing it again: moto 5.2.5 cannot update the description of a rule whose source is a security group (%s)",
				c.typ.token, c.urn.Name(), standIn))
		}
		return nil
	},
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		groupID, r := str(state, "securityGroupId"), ruleOf(state)
		err := c.aws().ec2.call(ctx, r.action("Revoke"), r.params(groupID), nil)
		if err != nil && errorCode(err) != "InvalidPermission.NotFound" {
			return fmt.Errorf("revoking Security Group (%s) Rule (%s): %w", groupID, id, err)
		}
		return nil
	},
}

func notFoundOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}
