namespace Shop.Core;

public partial class Cart : ICart
{
    public int Total() => _count;
}
