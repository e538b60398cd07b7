namespace Shop.Core.Tests;

public class OrderTests { }
