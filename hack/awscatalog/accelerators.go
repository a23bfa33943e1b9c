package main

import (
	"math"
	"strconv"
	"strings"
)

// accelerators classifies the data's GPU fields, which lump NVIDIA GPUs, AMD GPUs and AWS
// Inferentia/Trainium chips together. The family decides first (inf*/trn* are Neuron
// devices whatever the model says: the data calls Trainium "AWS Inferentia" and leaves
// trn2's model empty), then the model's manufacturer word.
func accelerators(in *rawInstance, n typeName) (accelerator, bool) {
	count, ok := wholePositive(in.GPU)
	if !ok {
		return accelerator{}, false
	}
	model := strings.TrimSpace(string(in.GPUModel))
	lower := strings.ToLower(model)
	if n.category == "inf" || n.category == "trn" || strings.Contains(lower, "inferentia") || strings.Contains(lower, "trainium") {
		name := "inferentia"
		if n.category == "trn" {
			name = "trainium"
		}
		// Karpenter's names follow the API's: inferentia, inferentia2, trainium, trainium2.
		if g, err := strconv.Atoi(n.generation); err == nil && g >= 2 {
			name += strconv.Itoa(g)
		}
		return accelerator{
			resource: "aws.amazon.com/neuron",
			count:    count,
			labels: map[string]string{
				labelPrefix + "instance-accelerator-name":         name,
				labelPrefix + "instance-accelerator-manufacturer": "aws",
				labelPrefix + "instance-accelerator-count":        strconv.Itoa(count),
			},
		}, true
	}
	var manufacturer, resource string
	switch {
	case strings.HasPrefix(lower, "nvidia"):
		manufacturer, resource = "nvidia", "nvidia.com/gpu"
	case strings.HasPrefix(lower, "amd"):
		manufacturer, resource = "amd", "amd.com/gpu"
	default:
		return accelerator{}, false
	}
	labels := map[string]string{
		labelPrefix + "instance-gpu-count":        strconv.Itoa(count),
		labelPrefix + "instance-gpu-manufacturer": manufacturer,
	}
	if name := gpuName(model); name != "" {
		labels[labelPrefix+"instance-gpu-name"] = name
	}
	// The data's GPU_memory is GiB for all GPUs together; the label is MiB per GPU.
	if in.GPUMemory.OK && in.GPUMemory.V > 0 {
		labels[labelPrefix+"instance-gpu-memory"] = strconv.FormatInt(int64(math.Round(in.GPUMemory.V*1024/float64(count))), 10)
	}
	return accelerator{resource: resource, count: count, labels: labels}, true
}

// gpuName turns the data's marketing name into the API's short GPU name, lower-cased and
// dashed as Karpenter labels it: "NVIDIA Tesla V100" → v100, "NVIDIA T4G Tensor Core" →
// t4g, "AMD Radeon Pro V520" → radeon-pro-v520.
func gpuName(model string) string {
	words := strings.Fields(model)
	var kept []string
	for i, w := range words {
		lw := strings.ToLower(w)
		if i == 0 && (lw == "nvidia" || lw == "amd") {
			continue
		}
		if lw == "tesla" || lw == "grid" {
			continue
		}
		if lw == "tensor" && i+1 < len(words) && strings.EqualFold(words[i+1], "core") && i+2 == len(words) {
			break
		}
		kept = append(kept, lw)
	}
	name := strings.Join(kept, "-")
	// Keep the value a valid label value whatever the data holds.
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			return r
		}
		return '-'
	}, name)
	name = strings.Trim(name, "-._")
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-._")
	}
	return name
}
