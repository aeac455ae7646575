// The built-in op table. Schemas are ATen's, as torch 1.13 prints them
// (torch.ops.aten.OP.OVERLOAD._schema); the shape rule names the family.
#include "ir/op_registry.h"

#include <map>
#include <stdexcept>

namespace torchtv {

namespace {

struct OpEntry {
  const char *schema;
  ShapeRule rule;
};

// clang-format off
const OpEntry kOps[] = {
    // A literal tensor; `data` holds every element in row-major order.
    {R"(prim::constant(float[] data) -> Tensor)", ShapeRule::Constant},
    {R"(aten::abs(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::neg(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::exp(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::log(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::log1p(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::expm1(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::sqrt(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::rsqrt(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::tanh(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::sigmoid(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::relu(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::sin(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::cos(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::erf(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::reciprocal(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::sign(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::floor(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::ceil(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::round(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::gelu(Tensor self, *, str approximate="none") -> Tensor)", ShapeRule::Same},
    {R"(aten::silu(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor)", ShapeRule::Same},
    {R"(aten::detach(Tensor(a) self) -> Tensor(a))", ShapeRule::Same},
    {R"(aten::alias(Tensor(a) self) -> Tensor(a))", ShapeRule::Same},
    {R"(aten::lift_fresh_copy(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::logical_not(Tensor self) -> Tensor)", ShapeRule::SameBool},
    {R"(aten::isnan(Tensor self) -> Tensor)", ShapeRule::SameBool},
    {R"(aten::bitwise_not(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a))", ShapeRule::Same},
    {R"(aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::mul.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::div.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::BroadcastFloat},
    {R"(aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::maximum(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::minimum(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::atan2(Tensor self, Tensor other) -> Tensor)", ShapeRule::BroadcastFloat},
    {R"(aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::mul.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::div.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::BroadcastFloat},
    {R"(aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor)", ShapeRule::Same},
    {R"(aten::clamp_min(Tensor self, Scalar min) -> Tensor)", ShapeRule::Same},
    {R"(aten::clamp_max(Tensor self, Scalar max) -> Tensor)", ShapeRule::Same},
    {R"(aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor)", ShapeRule::Same},
    {R"(aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor)", ShapeRule::Same},
    {R"(aten::eq.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::ne.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::lt.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::le.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::gt.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::ge.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::eq.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::ne.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::lt.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::le.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::gt.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::ge.Scalar(Tensor self, Scalar other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::logical_and(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::logical_or(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::logical_xor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Compare},
    {R"(aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor)", ShapeRule::Where},
    {R"(aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor)", ShapeRule::Same},
    {R"(aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor)", ShapeRule::Same},
    // Out-of-place form of fill_ (autograd's silu backward in torch 1.13 emits empty_like + fill_).
    {R"(aten::fill.Scalar(Tensor self, Scalar value) -> Tensor)", ShapeRule::Same},
    // Out-of-place forms of fill_(Tensor), zero_ and copy_ (Note [TorchScript in-place ops]):
    // self gives the shape and dtype only; its values are never read.
    {R"(aten::fill.Tensor(Tensor self, Tensor value) -> Tensor)", ShapeRule::CopyInto},
    {R"(aten::zero(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor)", ShapeRule::CopyInto},
    {R"(aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor)", ShapeRule::ReduceAll},
    {R"(aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor)", ShapeRule::Reduce},
    {R"(aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor)", ShapeRule::ReduceAll},
    {R"(aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor)", ShapeRule::Reduce},
    {R"(aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor)", ShapeRule::Reduce},
    {R"(aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor)", ShapeRule::Reduce},
    {R"(aten::var.correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> Tensor)", ShapeRule::Reduce},
    {R"(aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor)", ShapeRule::Reduce},
    {R"(aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor)", ShapeRule::Reduce},
    {R"(aten::any(Tensor self) -> Tensor)", ShapeRule::ReduceAll},
    {R"(aten::all(Tensor self) -> Tensor)", ShapeRule::ReduceAll},
    {R"(aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor)", ShapeRule::ReduceAll},
    {R"(aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor)", ShapeRule::Reduce},
    {R"(aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor)", ShapeRule::ReduceOneDim},
    {R"(aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor)", ShapeRule::ReduceOneDim},
    {R"(aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices))", ShapeRule::MaxDim},
    {R"(aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices))", ShapeRule::MaxDim},
    {R"(aten::mm(Tensor self, Tensor mat2) -> Tensor)", ShapeRule::Mm},
    {R"(aten::bmm(Tensor self, Tensor mat2) -> Tensor)", ShapeRule::Bmm},
    {R"(aten::matmul(Tensor self, Tensor other) -> Tensor)", ShapeRule::Matmul},
    {R"(aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor)", ShapeRule::Addmm},
    {R"(aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor)", ShapeRule::Linear},
    {R"(aten::t(Tensor(a) self) -> Tensor(a))", ShapeRule::T},
    {R"(aten::dot(Tensor self, Tensor tensor) -> Tensor)", ShapeRule::Dot},
    {R"(aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a))", ShapeRule::View},
    {R"(aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a))", ShapeRule::View},
    {R"(aten::_unsafe_view(Tensor self, SymInt[] size) -> Tensor)", ShapeRule::View},
    // make_fx (torch 1.13) records a reshape that can be a view as _reshape_alias with the
    // contiguous strides of `size`; logically it is that reshape.
    {R"(aten::_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a))", ShapeRule::View},
    {R"(aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a))", ShapeRule::Expand},
    {R"(aten::permute(Tensor(a) self, int[] dims) -> Tensor(a))", ShapeRule::Permute},
    {R"(aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a))", ShapeRule::Transpose},
    {R"(aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a))", ShapeRule::Unsqueeze},
    {R"(aten::squeeze(Tensor(a) self) -> Tensor(a))", ShapeRule::Squeeze},
    {R"(aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a))", ShapeRule::SqueezeDim},
    {R"(aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a))", ShapeRule::Slice},
    {R"(aten::select.int(Tensor(a) self, int dim, int index) -> Tensor(a))", ShapeRule::Select},
    {R"(aten::cat(Tensor[] tensors, int dim=0) -> Tensor)", ShapeRule::Cat},
    {R"(aten::stack(Tensor[] tensors, int dim=0) -> Tensor)", ShapeRule::Stack},
    {R"(aten::flip(Tensor self, int[] dims) -> Tensor)", ShapeRule::Same},
    {R"(aten::tril(Tensor self, int diagonal=0) -> Tensor)", ShapeRule::Same},
    {R"(aten::triu(Tensor self, int diagonal=0) -> Tensor)", ShapeRule::Same},
    {R"(aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor)", ShapeRule::ToCopy},
    {R"(aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a))", ShapeRule::ToDType},
    {R"(aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor)", ShapeRule::LikeFactory},
    {R"(aten::zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor)", ShapeRule::LikeFactory},
    {R"(aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor)", ShapeRule::LikeFactory},
    {R"(aten::empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor)", ShapeRule::LikeFactory},
    // Uninitialized memory (kUninitialized below): a type, values nobody wrote.
    {R"(aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor)", ShapeRule::Full},
    {R"(aten::new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor)", ShapeRule::NewFactory},
    {R"(aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor)", ShapeRule::Full},
    {R"(aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor)", ShapeRule::Full},
    {R"(aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor)", ShapeRule::Full},
    // self gives only the dtype (and device): autograd's decompositions build buffers with these.
    {R"(aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor)", ShapeRule::NewFactory},
    {R"(aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor)", ShapeRule::NewFactory},
    {R"(aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor)", ShapeRule::ScalarTensor},
    {R"(aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor))", ShapeRule::LayerNorm},
    {R"(aten::native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor))", ShapeRule::LayerNormBackward},
    {R"(aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor)", ShapeRule::Same},
    {R"(aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor)", ShapeRule::LikeFactory},
    {R"(aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor)", ShapeRule::LikeFactory},
    {R"(aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor)", ShapeRule::Same},
    {R"(aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor)", ShapeRule::Same},
    {R"(aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor)", ShapeRule::LikeFactory},
    {R"(aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor)", ShapeRule::SoftmaxBackward},
    {R"(aten::_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor)", ShapeRule::SoftmaxBackward},
    {R"(aten::gelu_backward(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor)", ShapeRule::Same},
    {R"(aten::silu_backward(Tensor grad_output, Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor)", ShapeRule::Same},
    {R"(aten::tanh_backward(Tensor grad_output, Tensor output) -> Tensor)", ShapeRule::Same},
    {R"(aten::threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor)", ShapeRule::Same},
    {R"(aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor)", ShapeRule::Same},
    {R"(aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index) -> (Tensor output, Tensor total_weight))", ShapeRule::NllLossForward},
    {R"(aten::nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index, Tensor total_weight) -> Tensor)", ShapeRule::NllLossBackward},
    {R"(aten::mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor)", ShapeRule::MseLoss},
    {R"(aten::mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor)", ShapeRule::MseLossBackward},
    {R"(aten::embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor)", ShapeRule::Embedding},
    {R"(aten::embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, int padding_idx, bool scale_grad_by_freq) -> Tensor)", ShapeRule::EmbeddingBackward},
    // Ops that torch.compile's Inductor writes into the graphs it rewrites (torch 2.x schemas;
    // fusions/inductor.tvir defines the composite ones). Declared: the graph file gives the types.
    {R"(aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a))", ShapeRule::SqueezeDim},
    {R"(aten::slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor)", ShapeRule::Same},
    {R"(aten::select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor)", ShapeRule::Same},
    {R"(aten::var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor))", ShapeRule::VarMean},
    {R"(prims::convert_element_type(Tensor a, ScalarType dtype) -> Tensor)", ShapeRule::ToDType},
    // Core ATen's batch norm (torch >= 2.1; torch.export writes them). Semantics: Note [Batch norm].
    // (_native_batch_norm_legit itself updates running_mean/var in place: the registry holds
    // functional ops only.)
    {R"(aten::_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor))", ShapeRule::Declared},
    {R"(aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor))", ShapeRule::Declared},
    // Writes its running statistics in place; the .pt2 reader takes it as the _functional
    // form, the statistics' names reading its two extra results (Note [Batch norm's running
    // statistics] in src/import/pt2.cpp). Other readers refuse it as an in-place op.
    {R"(aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor))", ShapeRule::Declared},
    {R"(aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out))", ShapeRule::Declared},
    // torch >= 2.0's Core ATen ops LibTorch 1.13 lacks. A SymInt or Scalar result is a 0-dim
    // tensor in the IR (the type the artifact gives). Semantics: sym_size.int, sym_numel and
    // _local_scalar_dense (src/sem/layout.cpp); strides and storage offsets are not in the IR.
    {R"(aten::sym_size.int(Tensor self, int dim) -> SymInt)", ShapeRule::Declared},
    {R"(aten::sym_numel(Tensor self) -> SymInt)", ShapeRule::Declared},
    {R"(aten::sym_stride.int(Tensor self, int dim) -> SymInt)", ShapeRule::Declared},
    {R"(aten::sym_storage_offset(Tensor self) -> SymInt)", ShapeRule::Declared},
    {R"(aten::_local_scalar_dense(Tensor self) -> Scalar)", ShapeRule::Declared},
    // The prims torch._refs calls that return a Python number (registered from Python in
    // torch/_prims, so not in the dispatcher's list): a 0-dim tensor too (src/sem/layout.cpp).
    {R"(prims::item(Tensor a) -> Scalar)", ShapeRule::Declared},
    {R"(prims::maximum_value(ScalarType dtype) -> Scalar)", ShapeRule::Declared},
    {R"(prims::fma(Tensor a, Tensor b, Tensor c) -> Tensor)", ShapeRule::Broadcast},
    {R"(prims::iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype, Device device, bool requires_grad) -> Tensor)", ShapeRule::Declared},
    {R"(prims::prepare_softmax_online(Tensor a, int dim) -> (Tensor, Tensor))", ShapeRule::Declared},
    {R"(aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp))", ShapeRule::Declared},
    {R"(aten::_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value))", ShapeRule::Declared},
    {R"(aten::_scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor rng_state, Tensor unused, Tensor debug_attn_mask))", ShapeRule::Declared},
    {R"(aten::_scaled_dot_product_flash_attention_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, Tensor? cum_seq_q, Tensor? cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, Tensor philox_seed, Tensor philox_offset, *, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value))", ShapeRule::Declared},
    {R"(aten::_scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, *, float? scale=None) -> (Tensor output, Tensor log_sumexp, Tensor philox_seed, Tensor philox_offset))", ShapeRule::Declared},
    {R"(aten::_scaled_dot_product_efficient_attention_backward(Tensor grad_out_, Tensor query, Tensor key, Tensor value, Tensor? attn_bias, Tensor out, Tensor logsumexp, Tensor philox_seed, Tensor philox_offset, float dropout_p, bool[4] grad_input_mask, bool is_causal=False, *, float? scale=None) -> (Tensor, Tensor, Tensor, Tensor))", ShapeRule::Declared},

    // ---- Index ops (issue 4: nll_loss, embedding, attention). Semantics: src/sem/index_ops.cpp.
    {R"(aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor)", ShapeRule::Gather},
    {R"(aten::index_select(Tensor self, int dim, Tensor index) -> Tensor)", ShapeRule::IndexSelect},
    {R"(aten::one_hot(Tensor self, int num_classes=-1) -> Tensor)", ShapeRule::OneHot},
    {R"(aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor)", ShapeRule::Scatter},
    {R"(aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor)", ShapeRule::Scatter},
    {R"(aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor)", ShapeRule::IndexPut},
    {R"(aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor)", ShapeRule::IndexTensor},
    // torch >= 2.0's public op, with the keyword-only arguments of torch >= 2.5 (a graph that
    // omits them gets their defaults); torch 1.13 has only _scaled_dot_product_attention.
    // Semantics: src/sem/attention.cpp.
    {R"(aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor)", ShapeRule::Attention},
    // ---- end of index ops
    // Ops returning a list of tensors: one node output per piece.
    {R"(aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[])", ShapeRule::Split},
    {R"(aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[])", ShapeRule::Split},
    {R"(aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[])", ShapeRule::Split},
    {R"(aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[])", ShapeRule::Split},
    {R"(aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a))", ShapeRule::ExpandAs},
    {R"(aten::type_as(Tensor self, Tensor other) -> Tensor)", ShapeRule::TypeAs},
    {R"(aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor)", ShapeRule::ConstantPadNd},
    // ---- Elementwise ops that fusions/prims.tvir expands prims into (each prim's
    // torch 1.13 kernel is this op: Note [prims] in fusions/prims.tvir). Schemas as above.
    {R"(aten::tan(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::asin(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::acos(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::atan(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::sinh(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::cosh(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::asinh(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::acosh(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::atanh(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::log2(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::log10(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::exp2(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::erfc(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::erfinv(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::lgamma(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::digamma(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::i0(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::special_i0e(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::special_i1(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::special_i1e(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::special_bessel_j0(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::special_bessel_j1(Tensor self) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::special_spherical_bessel_j0(Tensor x) -> Tensor)", ShapeRule::SameFloat},
    {R"(aten::trunc(Tensor self) -> Tensor)", ShapeRule::Same},
    {R"(aten::isfinite(Tensor self) -> Tensor)", ShapeRule::SameBool},
    {R"(aten::isinf(Tensor self) -> Tensor)", ShapeRule::SameBool},
    {R"(aten::signbit(Tensor self) -> Tensor)", ShapeRule::SameBool},
    {R"(aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::fmod.Tensor(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::fmax(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::fmin(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::gcd(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::nextafter(Tensor self, Tensor other) -> Tensor)", ShapeRule::Broadcast},
    {R"(aten::hypot(Tensor self, Tensor other) -> Tensor)", ShapeRule::BroadcastFloat},
    {R"(aten::igamma(Tensor self, Tensor other) -> Tensor)", ShapeRule::BroadcastFloat},
    {R"(aten::igammac(Tensor self, Tensor other) -> Tensor)", ShapeRule::BroadcastFloat},
    {R"(aten::special_zeta(Tensor self, Tensor other) -> Tensor)", ShapeRule::BroadcastFloat},
    // ---- prims whose results torch.fx graphs give (shape rule Declared); their
    // semantics are views (src/sem/layout.cpp), the other prims expand through
    // fusions/prims.tvir.
    {R"(prims::broadcast_in_dim(Tensor(a) a, SymInt[] shape, int[] broadcast_dimensions) -> Tensor(a))", ShapeRule::Declared},
    {R"(prims::collapse_view(Tensor(a) a, int start, int end) -> Tensor(a))", ShapeRule::Declared},
    {R"(prims::split_dim(Tensor(a) a, int dim, SymInt outer_length) -> Tensor(a))", ShapeRule::Declared},
    {R"(prims::cat(Tensor[] tensors, int dim) -> Tensor)", ShapeRule::Cat},
    {R"(prims::arange(Scalar start, Scalar end, Scalar step, *, ScalarType? dtype, Device? device, bool requires_grad) -> Tensor)", ShapeRule::Declared},
};
// clang-format on

// Note [Declared ops]
// Every functional aten/prims overload LibTorch 1.13 knows (its dispatcher's
// schema list, written into aten_schemas.inc by scripts/gen_schemas.py) is a
// known op. One without a hand-written entry above is "declared": its schema
// is checked (arguments, kinds, defaults) but its result types are not
// computed, so a reader takes them from the artifact (capture JSON, .pt2,
// .tvir) and a pass cannot rebuild it. It has no semantics: an uninterpreted
// function, equal only to an equal call on equal operands (or never, when
// random). The hand-written schema wins where both exist (some are torch 2.x's).
constexpr unsigned kSeeded = 1, kBitwiseNondeterministic = 2;
struct GeneratedEntry {
  const char *schema;
  unsigned tags;
};
const GeneratedEntry kGenerated[] = {
#include "ir/aten_schemas.inc"
};

// Ops whose elements move without arithmetic (Note [Op properties]).
const std::map<std::string, ElementMap, std::less<>> kElementMaps = {
    {"aten::detach", ElementMap::Identity},       {"aten::alias", ElementMap::Identity},
    {"aten::clone", ElementMap::Identity},        {"aten::contiguous", ElementMap::Identity},
    {"aten::lift_fresh_copy", ElementMap::Identity},
    {"aten::view", ElementMap::Reshape},          {"aten::reshape", ElementMap::Reshape},
    {"aten::_unsafe_view", ElementMap::Reshape},  {"aten::_reshape_alias", ElementMap::Reshape},
    {"aten::expand", ElementMap::Reshape},        {"aten::expand_as", ElementMap::Reshape},
    {"aten::unsqueeze", ElementMap::Reshape},     {"aten::squeeze", ElementMap::Reshape},
    {"aten::squeeze.dim", ElementMap::Reshape},   {"aten::squeeze.dims", ElementMap::Reshape},
    {"aten::permute", ElementMap::Reorder},       {"aten::transpose.int", ElementMap::Reorder},
    {"aten::t", ElementMap::Reorder},             {"aten::slice.Tensor", ElementMap::Reorder},
    {"aten::select.int", ElementMap::Reorder},    {"aten::flip", ElementMap::Reorder},
    {"aten::split.Tensor", ElementMap::Reorder},  {"aten::split_with_sizes", ElementMap::Reorder},
    {"aten::chunk", ElementMap::Reorder},         {"aten::unbind.int", ElementMap::Reorder},
    {"prims::broadcast_in_dim", ElementMap::Reshape}, {"prims::collapse_view", ElementMap::Reshape},
    {"prims::split_dim", ElementMap::Reshape},
};

// Bitwise-commutative ops (Note [Commutative ops] in src/match/value_numbering.h).
const std::map<std::string, Commutes, std::less<>> kCommuting = {
    {"aten::add.Tensor", Commutes::UnitAlpha}, {"aten::mul.Tensor", Commutes::Always},
    {"aten::eq.Tensor", Commutes::Always},     {"aten::ne.Tensor", Commutes::Always},
    {"aten::logical_and", Commutes::Always},   {"aten::logical_or", Commutes::Always},
    {"aten::logical_xor", Commutes::Always},
};

const char *const kMatrixProducts[] = {"aten::mm", "aten::bmm", "aten::matmul", "aten::linear", "aten::addmm",
                                       "aten::dot"};

// Arguments holding indices (Note [Op properties], Note [Input domains]).
const std::map<std::string, IndexOperand, std::less<>> kIndexOperands = {
    {"aten::embedding", {"indices", "weight", "", false, 0, ""}},
    {"aten::gather", {"index", "self", "dim", false, 0, ""}},
    {"aten::index_select", {"index", "self", "dim", false, 0, ""}},
    {"aten::scatter.src", {"index", "self", "dim", false, 0, ""}},
    {"aten::scatter.value", {"index", "self", "dim", false, 0, ""}},
    {"aten::scatter_add", {"index", "self", "dim", false, 0, ""}},
    {"aten::nll_loss_forward", {"target", "self", "", true, 0, ""}},
    {"aten::nll_loss_backward", {"target", "self", "", true, 0, ""}},
    {"aten::nll_loss", {"target", "self", "", true, 0, ""}},
    {"aten::one_hot", {"self", "", "", false, 0, "num_classes"}},
};

// Ops real-valued only where an argument is positive (Note [Input domains]).
const std::map<std::string, std::string, std::less<>> kPositiveArgs = {
    {"aten::log", "self"}, {"aten::log2", "self"}, {"aten::log10", "self"},
    {"aten::sqrt", "self"}, {"aten::rsqrt", "self"},
};

// Arguments an additive mask (0 to keep, large negative to mask) goes into (Note
// [Input domains]); amax for softmax and logsumexp as normalization expands them.
const std::map<std::string, MaskOperand, std::less<>> kMaskOperands = {
    {"aten::amax", {"self", true}},
    {"aten::_softmax", {"self", true}},          {"aten::softmax.int", {"self", true}},
    {"aten::_log_softmax", {"self", true}},      {"aten::log_softmax.int", {"self", true}},
    {"aten::_safe_softmax", {"self", true}},     {"aten::logsumexp", {"self", true}},
    {"aten::scaled_dot_product_attention", {"attn_mask", false}},
    {"aten::_scaled_dot_product_attention", {"attn_mask", false}},
};

// Random ops that are the identity for some arguments (isIdentityCall).
const char *const kDropouts[] = {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
                                 "aten::feature_alpha_dropout", "aten::native_dropout"};

// Ops whose schemas annotate no alias although they can return an operand's
// memory: composites that return their input itself when they are the
// identity (type_as and _cast_X to the same dtype, atleast_Nd, sum_to_size,
// to_dense), and views that say they are not (the unsafe_ ones, broadcast and
// meshgrid's expands). By name prefix (Note [Op properties]: mayAlias).
const char *const kUnannotatedAliases[] = {"aten::type_as",     "aten::_cast_",          "aten::atleast_",
                                           "aten::sum_to_size", "aten::to_dense",        "aten::broadcast_tensors",
                                           "aten::meshgrid",    "aten::unsafe_",         "aten::_unsafe_view"};

// Uninitialized memory: values nobody wrote, not a function of the operands,
// so they count as random (Note [Random calls]): two such calls never match,
// and an output reading them is decided only where it does not depend on them
// (`addmm(empty_like(a), x, y, beta=0)` ignores its first operand).
const char *const kUninitialized[] = {"aten::empty.memory_format", "aten::empty_like",        "aten::new_empty",
                                      "aten::empty_strided",       "aten::new_empty_strided", "prims::empty_strided",
                                      "prims::empty"};

// Random ops by name, for ops the registry does not know (Note [Op properties]).
bool randomByName(std::string_view op) {
  if (op.size() > 9 && op.substr(op.size() - 9) == "_backward") return false;
  for (const char *word : {"rand", "dropout", "bernoulli", "normal", "multinomial", "uniform", "poisson",
                           "exponential", "geometric", "cauchy"})
    if (op.find(word) != std::string_view::npos) return true;
  return false;
}

struct Registry {
  std::vector<OpInfo> ops;
  std::map<std::string, size_t, std::less<>> byName;

  // Returns the op's name.
  std::string add(const char *text, ShapeRule rule, bool generated) {
    auto schema = std::make_shared<const OpSchema>(parseSchema(text));
    if (!byName.count(schema->name)) {  // the hand-written entry comes first and wins
      byName.emplace(schema->name, ops.size());
      ops.push_back(OpInfo{schema, rule, {}, generated});
    }
    return schema->name;
  }

  Registry() {
    for (const OpEntry &e : kOps) add(e.schema, e.rule, false);
    std::map<std::string, unsigned, std::less<>> tags;
    for (const GeneratedEntry &e : kGenerated) tags[add(e.schema, ShapeRule::Declared, true)] |= e.tags;
    ops.shrink_to_fit();
    for (OpInfo &info : ops) {
      const std::string &name = info.schema->name;
      OpProps &p = info.props;
      if (auto it = kElementMaps.find(name); it != kElementMaps.end()) p.elements = it->second;
      if (auto it = kCommuting.find(name); it != kCommuting.end()) p.commutes = it->second;
      for (const char *m : kMatrixProducts) p.matrixProduct = p.matrixProduct || name == m;
      if (auto it = kIndexOperands.find(name); it != kIndexOperands.end()) p.indexes = it->second;
      if (auto it = kPositiveArgs.find(name); it != kPositiveArgs.end()) p.positiveArg = it->second;
      if (auto it = kMaskOperands.find(name); it != kMaskOperands.end()) p.masks = it->second;
      // Identity maps that alias are annotated (detach, alias, contiguous); clone copies.
      p.mayAlias = info.schema->returnsAlias || p.elements == ElementMap::Reshape || p.elements == ElementMap::Reorder;
      for (const char *d : kDropouts) p.mayAlias = p.mayAlias || name == d;
      for (const char *a : kUnannotatedAliases) p.mayAlias = p.mayAlias || name.rfind(a, 0) == 0;
      auto t = tags.find(name);
      unsigned flags = t == tags.end() ? 0 : t->second;
      // torch 1.13's random prims (uniform, normal) carry no tags at all: by name, as for an op
      // the tag table does not list (golden soundness/random_prims_never_equal).
      bool untagged = t == tags.end() || name.rfind("prims::", 0) == 0;
      p.random = (flags & kSeeded) != 0 || (untagged && randomByName(name));
      for (const char *u : kUninitialized) p.uninitialized = p.uninitialized || name == u;
      p.random = p.random || p.uninitialized;
      p.bitwiseNondeterministic = (flags & kBitwiseNondeterministic) != 0;
      scalarTwin(info);
    }
  }

  // `X.Tensor` -> `X.Scalar` when exactly one tensor argument of X.Tensor is a
  // Scalar of the same name in X.Scalar and every other argument agrees.
  void scalarTwin(OpInfo &info) const {
    const std::string &name = info.schema->name;
    const std::string suffix = ".Tensor";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      return;
    std::string alt = name.substr(0, name.size() - suffix.size()) + ".Scalar";
    auto it = byName.find(alt);
    if (it == byName.end()) return;
    const OpSchema &a = *info.schema, &b = *ops[it->second].schema;
    if (a.args.size() != b.args.size()) return;
    std::string arg;
    for (size_t i = 0; i < a.args.size(); ++i) {
      if (a.args[i].name != b.args[i].name) return;
      if (a.args[i].kind == b.args[i].kind) continue;
      if (a.args[i].kind != ArgKind::Tensor || b.args[i].kind != ArgKind::Scalar || !arg.empty()) return;
      arg = a.args[i].name;
    }
    if (arg.empty()) return;
    info.props.scalarTwin = alt;
    info.props.scalarArg = arg;
  }
};

const Registry &registry() {
  static const Registry r;
  return r;
}

}  // namespace

const OpInfo *lookupOp(std::string_view name) {
  const Registry &r = registry();
  auto it = r.byName.find(name);
  return it == r.byName.end() ? nullptr : &r.ops[it->second];
}

const std::vector<OpInfo> &allOps() { return registry().ops; }

OpProps opProps(std::string_view name) {
  if (const OpInfo *info = lookupOp(name)) return info->props;
  OpProps p;
  p.random = randomByName(name);
  p.mayAlias = true;
  return p;
}

bool isIdentityCall(std::string_view op, const AttributeMap &attrs) {
  bool dropout = false;
  for (const char *d : kDropouts) dropout = dropout || op == d;
  if (!dropout) return false;
  auto p = attrs.find("p");
  auto train = attrs.find("train");
  bool noTraining = train != attrs.end() && train->second.isBool() && !train->second.asBool();
  bool zeroP = p != attrs.end() && p->second.isScalar() && p->second.asDouble() == 0.0;
  return noTraining || zeroP;
}

bool isRandomCall(std::string_view op, const AttributeMap &attrs) {
  if (opProps(op).random) return !isIdentityCall(op, attrs);
  auto nonzero = [&](const char *name) {
    auto it = attrs.find(name);
    return it != attrs.end() && (!it->second.isScalar() || it->second.asDouble() != 0.0);
  };
  auto train = attrs.find("train");
  bool training = train == attrs.end() || !train->second.isBool() || train->second.asBool();
  return nonzero("dropout_p") || (nonzero("dropout") && training);
}

}  // namespace torchtv
