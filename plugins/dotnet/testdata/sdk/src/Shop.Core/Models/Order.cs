// namespace Commented.Out;
namespace Shop.Models;

public sealed record Order(int Id, decimal Total)
{
    public string Describe() => "namespace NotReal { }";
}
