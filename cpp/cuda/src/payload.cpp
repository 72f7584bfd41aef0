// CudaBackend payload reader (skeleton).
namespace etcuda {}
