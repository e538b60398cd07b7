namespace Shop.Core;

public interface ICart
{
    int Total();
}
