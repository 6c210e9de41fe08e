module github.com/pulumi-karpenter/pulumi-karpenter/tests/docs-code/yamlcheck

go 1.26

require gopkg.in/yaml.v3 v3.0.1
