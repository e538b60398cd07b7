using Shop.Core;

var cart = new Cart();
cart.Add(2);
Console.WriteLine(cart.Total());
Console.WriteLine(await Cart.FromResult(3));
Console.WriteLine(Clock.Stamp());
